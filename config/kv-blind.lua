-- Blind writes to one key of brink target's /kv store: each user writes
-- without reading first, so the target cannot tell which value a write
-- replaces and keeps every overlapping write as a sibling. Siblings pile up
-- (watch node_get_fsm_siblings_100 in /stats); config/kv-rmw.lua is the cure.

function iteration(user)
    local w = brink.request{method = "PUT", url = "/kv/shared", name = "write",
                            body = "user " .. user.id .. " iteration " .. user.iteration,
                            skip_body = true}
    brink.check(w.status == 204, "write stored")
    -- One read now and then, so the target's read-side statistics see the pile.
    if user.iteration % 50 == 0 then
        brink.request{method = "GET", url = "/kv/shared", name = "read", skip_body = true}
    end
end
