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

-- A command as Redis reads it (RESP): an array of bulk strings,
-- "*2\r\n$3\r\nGET\r\n$11\r\nbrink:100:7\r\n".
local function command(...)
    local parts = {"*" .. select("#", ...) .. "\r\n"}
    for i = 1, select("#", ...) do
        local arg = select(i, ...)
        parts[#parts + 1] = "$" .. #arg .. "\r\n" .. arg .. "\r\n"
    end
    return table.concat(parts)
end

-- Frames one whole reply of GET at the start of buf: its length in bytes,
-- or nil while more must be read. GET answers a bulk string,
-- "$N\r\n" then N bytes and "\r\n", or "$-1\r\n" for a key never set; an
-- error ("-ERR ...\r\n") is one line. brink calls it each time bytes
-- arrive, so one GET, however many reads its 10,000 bytes take, is one
-- request.
local function bulk_reply(buf)
    local eol = buf:find("\r\n", 1, true)
    if not eol then
        return nil -- the first line is not whole yet
    end
    local n = buf:sub(1, 1) == "$" and tonumber(buf:sub(2, eol - 1))
    if not n or n < 0 then
        return eol + 1 -- a one-line reply: nil ("$-1"), an error, or anything else
    end
    local whole = eol + 1 + n + 2 -- the line, N bytes, "\r\n"
    if #buf < whole then
        return nil
    end
    return whole
end

function iteration(user)
    -- The user's connection, kept in its own table between iterations: it
    -- connects at its first request, and again after a failed one.
    user.redis = user.redis or brink.tcp{host = HOST, port = PORT}
    local redis = user.redis

    local size = SIZES[brink.random(#SIZES)]

    -- SET answers "+OK\r\n": one line, read up to and including its "\r\n".
    redis:send(command("SET", "brink:" .. size .. ":" .. brink.random(KEYS), values[size]))
    local r = redis:receive{name = "SET", upto = "\r\n"}
    if r.error then
        return -- counted in its class (refused, reset, timeout...) already
    end
    brink.check(r.data == "+OK\r\n", "SET replied +OK")

    -- GET of another key of the same size: its value, or nil while no
    -- iteration has SET it yet.
    redis:send(command("GET", "brink:" .. size .. ":" .. brink.random(KEYS)))
    r = redis:receive{name = "GET", complete = bulk_reply}
    if r.error then
        return
    end
    brink.check(r.data == "$-1\r\n" or r.data == "$" .. size .. "\r\n" .. values[size] .. "\r\n",
                "GET replied the value SET")
end
