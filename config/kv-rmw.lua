-- Read-modify-write against brink target's /kv store, as Riak clients do:
-- read the key, take the version the reply names (X-Brink-Version), write
-- back naming it. The target then replaces the siblings up to that version,
-- so however many users share the key, siblings stay near their number.
-- Compare config/kv-blind.lua, which writes without reading.
--
--   brink target &
--   brink run -f config/kv-rmw.ini
--   curl -s http://127.0.0.1:8080/stats    (node_get_fsm_siblings_100)

local key = "/kv/shared"

function iteration(user)
    local r = brink.request{method = "GET", url = key, name = "read", expect = {200, 404}}
    local headers = {}
    if r.status == 200 then
        headers["X-Brink-Version"] = r.headers["x-brink-version"]
    end
    brink.check(r.status == 200 or r.status == 404, "read answered")
    local w = brink.request{method = "PUT", url = key, name = "write", headers = headers,
                            body = "user " .. user.id .. " iteration " .. user.iteration,
                            skip_body = true}
    brink.check(w.status == 204, "write stored")
end
