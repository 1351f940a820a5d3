-- WebSocket messages and their echoes, over brink.ws: each iteration sends
-- one text message on the user's connection and waits for the server to
-- send it back; that wait is one request of the kind "echo", its latency
-- the round trip. brink.check says whether the echo was the message sent.
--
--   brink run -f config/ws-echo.ini
--
-- Point URL at any WebSocket echo server (the server's pings are answered
-- by brink, never seen by the script); tests/e2e/ws_echo_server.py is the
-- one brink's tests run it against, counting the messages it receives.
-- For wss://, [target] ca_file names the CA that signed its certificate.

local URL = "ws://127.0.0.1:8765/echo"

function iteration(user)
    -- The user's connection, kept in its own table between iterations: the
    -- upgrade happens at its first request (and counts in that one's
    -- latency), and again after a failed one.
    user.ws = user.ws or brink.ws{url = URL}
    local ws = user.ws

    -- A message that is this user's and this iteration's alone, so an echo
    -- of another message (or of another user's) cannot pass the check.
    local message = "user " .. user.id .. " message " .. user.iteration
    ws:send(message)
    local r = ws:receive{name = "echo"}
    if r.error then
        return -- counted in its class (closed_early, reset, timeout...) already
    end
    brink.check(r.type == "text" and r.data == message, "echo is the message sent")
end
