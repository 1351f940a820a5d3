-- An S3 multipart upload per iteration, as gof3r drives one: initiate
-- (POST ?uploads) and take the UploadId from the XML, send each part
-- (PUT ?partNumber=N&uploadId=...) and keep its ETag, then complete it
-- (POST ?uploadId=... with the XML list of the parts). Every request is
-- signed with AWS Signature V4 by [target] aws_sigv4 (config/s3-multipart.ini),
-- with the credentials of the environment (AWS_ACCESS_KEY_ID,
-- AWS_SECRET_ACCESS_KEY), which brink never records.
--
-- Each user makes UPLOADS objects of PARTS parts of PART_BYTES bytes, named
-- brink-USER-N, then idles: run it with --requests USERS * UPLOADS * (PARTS + 2)
-- and the run ends when the last upload is complete.

local BUCKET = "brink"
local PARTS = 4
local PART_BYTES = 5 * 1024 * 1024 -- S3's smallest part but the last
local UPLOADS = 2

-- The parts' bodies, made once per worker: part N is the letter N repeated.
local bodies = {}
for n = 1, PARTS do
    bodies[n] = string.rep(string.char(string.byte("a") + n - 1), PART_BYTES)
end

-- Percent-encodes s for a query string (RFC 3986 unreserved kept).
local function encode(s)
    return (s:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", c:byte()) end))
end

function iteration(user)
    if user.iteration > UPLOADS then
        brink.sleep(0.1) -- this user's uploads are done
        return
    end
    local object = "/" .. BUCKET .. "/brink-" .. user.id .. "-" .. user.iteration

    local r = brink.request{method = "POST", url = object .. "?uploads", name = "initiate",
                            expect = {200}}
    local upload_id = r.body:match("<UploadId>([^<]+)</UploadId>")
    if not brink.check(upload_id ~= nil, "initiate gave an UploadId") then return end
    local query = "uploadId=" .. encode(upload_id)

    local etags = {}
    for n = 1, PARTS do
        local p = brink.request{method = "PUT", name = "part", expect = {200}, skip_body = true,
                                url = object .. "?partNumber=" .. n .. "&" .. query,
                                body = bodies[n]}
        etags[n] = p.headers["etag"]
        if not brink.check(etags[n] ~= nil, "part gave an ETag") then return end
        brink.counter("part_bytes", PART_BYTES)
    end

    local xml = {"<CompleteMultipartUpload>"}
    for n = 1, PARTS do
        xml[#xml + 1] = "<Part><PartNumber>" .. n .. "</PartNumber><ETag>" .. etags[n] ..
                            "</ETag></Part>"
    end
    xml[#xml + 1] = "</CompleteMultipartUpload>"
    local c = brink.request{method = "POST", url = object .. "?" .. query, name = "complete",
                            headers = {["Content-Type"] = "application/xml"},
                            body = table.concat(xml), expect = {200}}
    -- S3 may answer 200 and put an error in the body: look for the result.
    brink.check(c.body:find("<CompleteMultipartUploadResult", 1, true) ~= nil,
                "complete succeeded")
end
