-- RESP, the protocol of Redis, for scenarios over brink.tcp: a command as
-- Redis reads it, and the framing of one whole reply for c:receive's
-- complete. A module: local resp = require("resp") in a script beside it
-- (config/redis.lua; with agents, name it in [agents] files).
local resp = {}

-- A command as Redis reads it: an array of bulk strings,
-- resp.command("GET", "k") is "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n".
function resp.command(...)
    local parts = {"*" .. select("#", ...) .. "\r\n"}
    for i = 1, select("#", ...) do
        local arg = tostring(select(i, ...))
        parts[#parts + 1] = "$" .. #arg .. "\r\n" .. arg .. "\r\n"
    end
    return table.concat(parts)
end

-- The length in bytes of the whole reply at the start of buf, or nil while
-- more must be read: c:receive{complete = resp.reply}. A bulk string is
-- "$N\r\n", N bytes and "\r\n" ("$-1\r\n": none); a simple string (+OK),
-- an error (-ERR ...) or an integer (:1) is one line. brink calls it each
-- time bytes arrive, so one reply, however many reads it takes, is one
-- request. (Arrays, "*N", are not framed here: a script that sends
-- commands answering arrays frames them itself.)
function resp.reply(buf)
    local eol = buf:find("\r\n", 1, true)
    if not eol then
        return nil -- the first line is not whole yet
    end
    local n = buf:sub(1, 1) == "$" and tonumber(buf:sub(2, eol - 1))
    if not n or n < 0 then
        return eol + 1 -- a one-line reply, or a bulk string of none
    end
    local whole = eol + 1 + n + 2 -- the line, N bytes, "\r\n"
    if #buf < whole then
        return nil
    end
    return whole
end

return resp
