-- RESP SET and GET against redis-server, over brink.tcp: no HTTP anywhere.
-- Values of 100, 1,000 and 10,000 bytes (the object sizes of RAMCloud's
-- throughput-and-latency study), keys drawn from a range. Each iteration
-- SETs one key and GETs another of the same size, one command at a time
-- (no pipelining): each is one request of its kind, "SET" or "GET", with
-- its own latency, bytes and errors in the console, report and session.
--
--   redis-server --save "" --appendonly no &
--   brink run -f config/redis.ini
--
-- Redis's own count of each command is its ground truth:
--   redis-cli INFO commandstats   (cmdstat_set, cmdstat_get: calls=N)

local HOST = "127.0.0.1"
local PORT = 6379
local SIZES = {100, 1000, 10000} -- value sizes, in bytes
local KEYS = 1000 -- keys per size: brink:SIZE:1 ... brink:SIZE:1000

-- One value per size, made once per worker. Every value of a size is the
-- same bytes, so whatever key a GET reads, its reply is known exactly.
local values = {}
for _, size in ipairs(SIZES) do
    values[size] = string.rep("v", size)
end

-- RESP: commands as Redis reads them, and the framing of one whole reply
-- (config/resp.lua, beside this script).
local resp = require("resp")

function iteration(user)
    -- The user's connection, kept in its own table between iterations: it
    -- connects at its first request, and again after a failed one.
    user.redis = user.redis or brink.tcp{host = HOST, port = PORT}
    local redis = user.redis

    local size = SIZES[brink.random(#SIZES)]

    -- SET answers "+OK\r\n": one line, read up to and including its "\r\n".
    redis:send(resp.command("SET", "brink:" .. size .. ":" .. brink.random(KEYS), values[size]))
    local r = redis:receive{name = "SET", upto = "\r\n"}
    if r.error then
        return -- counted in its class (refused, reset, timeout...) already
    end
    brink.check(r.data == "+OK\r\n", "SET replied +OK")

    -- GET of another key of the same size: its value, or nil while no
    -- iteration has SET it yet.
    redis:send(resp.command("GET", "brink:" .. size .. ":" .. brink.random(KEYS)))
    r = redis:receive{name = "GET", complete = resp.reply}
    if r.error then
        return
    end
    brink.check(r.data == "$-1\r\n" or r.data == "$" .. size .. "\r\n" .. values[size] .. "\r\n",
                "GET replied the value SET")
end
