-- Write then read back, against brink target's /kv store: each iteration
-- writes a fresh value under a key of its own user's, reads the key back and
-- checks that the value read is the value written (check:read back what
-- was written, beside the probes). Keys come from keys.txt (one a line),
-- loaded once by setup() and shared read-only by every worker.
--
--   brink target &
--   brink run -f config/kv-write-read.ini

function setup()
    brink.load_lines("keys.txt", {name = "keys"})
end

function iteration(user)
    local keys = brink.data("keys")
    local key = "/kv/" .. keys[(user.id - 1) % #keys + 1] .. "-" .. user.id
    local value = brink.uuid() .. " " .. brink.random(1, 1000000)
    local w = brink.request{method = "PUT", url = key, name = "write", body = value,
                            skip_body = true}
    if not brink.check(w.status == 204, "write stored") then return end
    local r = brink.request{url = key, name = "read back"}
    brink.check(r.body == value, "read back what was written")
    brink.counter("bytes written", #value)
    brink.sleep(0.01) -- think time between iterations
end
