-- memcached's text protocol over brink.tcp: each iteration sets one key and
-- gets another of the same size, one command at a time; each is one request
-- of its kind, "set" or "get". Values of 100, 1,000 and 10,000 bytes, keys
-- drawn from a range.
--
--   memcached -l 127.0.0.1 -U 0 &
--   brink run -f config/memcached.ini
--
-- memcached's own count of each command is its ground truth:
--   printf 'stats\r\nquit\r\n' | nc 127.0.0.1 11211   (cmd_set, cmd_get)

local HOST = "127.0.0.1"
local PORT = 11211
local SIZES = {100, 1000, 10000} -- value sizes, in bytes
local KEYS = 1000 -- keys per size: brink:SIZE:1 ... brink:SIZE:1000

-- One value per size, made once per worker: every value of a size is the
-- same bytes, so a get's reply is known exactly whatever key it reads.
local values = {}
for _, size in ipairs(SIZES) do
    values[size] = string.rep("m", size)
end

-- Frames one whole reply of get at the start of buf: its length in bytes,
-- or nil while more must be read. A hit is
--   VALUE <key> <flags> <bytes>\r\n<data>\r\nEND\r\n
-- a miss is "END\r\n", an error ("ERROR", "CLIENT_ERROR ...",
-- "SERVER_ERROR ...") one line. Counting the value's bytes, not looking for
-- "END\r\n", frames any value, even one that holds those bytes.
local function get_reply(buf)
    local eol = buf:find("\r\n", 1, true)
    if not eol then
        return nil -- the first line is not whole yet
    end
    local n = tonumber(buf:sub(1, eol - 1):match("^VALUE %S+ %d+ (%d+)$"))
    if not n then
        return eol + 1 -- END, or an error: one line
    end
    local whole = eol + 1 + n + #"\r\nEND\r\n"
    if #buf < whole then
        return nil
    end
    return whole
end

function iteration(user)
    -- The user's connection, kept in its own table between iterations: it
    -- connects at its first request, and again after a failed one.
    user.mc = user.mc or brink.tcp{host = HOST, port = PORT}
    local mc = user.mc

    local size = SIZES[brink.random(#SIZES)]

    -- set <key> <flags> <exptime> <bytes>, then the data; the reply,
    -- "STORED\r\n", is one line, read up to and including its "\r\n".
    local key = "brink:" .. size .. ":" .. brink.random(KEYS)
    mc:send("set " .. key .. " 0 0 " .. size .. "\r\n" .. values[size] .. "\r\n")
    local r = mc:receive{name = "set", upto = "\r\n"}
    if r.error then
        return -- counted in its class (refused, reset, timeout...) already
    end
    brink.check(r.data == "STORED\r\n", "set replied STORED")

    -- get of another key of the same size: its value, or a miss while no
    -- iteration has set it yet.
    key = "brink:" .. size .. ":" .. brink.random(KEYS)
    mc:send("get " .. key .. "\r\n")
    r = mc:receive{name = "get", complete = get_reply}
    if r.error then
        return
    end
    brink.check(r.data == "END\r\n" or
                    r.data == "VALUE " .. key .. " 0 " .. size .. "\r\n" .. values[size] .. "\r\nEND\r\n",
                "get replied the value set")
end
