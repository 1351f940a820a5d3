#!/usr/bin/env python3
"""Compares brink's AWS Signature V4 with botocore's, byte for byte.

Each case is signed twice at the same fixed time: by brink's sigv4_sign
(through tests/tools/sigv4_tool.c) and by botocore's S3SigV4Auth or
SigV4Auth. The Authorization, X-Amz-Date, X-Amz-Content-SHA256 and
X-Amz-Security-Token headers must be equal. botocore is Debian's
python3-botocore (scripts/install-deps); without it the test fails.

usage: sigv4_botocore.py SIGV4_TOOL
"""
import calendar
import datetime
import hashlib
import os
import subprocess
import sys
import tempfile
from urllib.parse import quote, unquote_to_bytes, urlsplit

try:
    import botocore.auth as auth
    from botocore.awsrequest import AWSRequest
    from botocore.config import Config
    from botocore.credentials import Credentials
except ImportError as e:
    sys.exit("sigv4_botocore: botocore is missing (install python3-botocore: "
             "scripts/install-deps): %s" % e)

FIXED = datetime.datetime(2026, 12, 1, 23, 59, 58)
UNIX = calendar.timegm(FIXED.timetuple())
KEY_ID = "AKIDEXAMPLE"
SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
TOKEN = ("IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQ+token/with+"
         "slashes==")


class FixedDatetime(datetime.datetime):
    @classmethod
    def utcnow(cls):
        return FIXED


def freeze_botocore_clock():
    """botocore reads the time through get_current_datetime (newer) or
    datetime.datetime.utcnow (Debian bookworm's 1.29): pin both."""
    if hasattr(auth, "get_current_datetime"):
        auth.get_current_datetime = lambda *a, **k: FIXED
    auth.datetime = type("m", (), {"datetime": FixedDatetime})


def strict_path(path):
    """The path as an AWS SDK serialises it: each segment decoded, then
    encoded with only RFC 3986's unreserved characters kept."""
    segs = path.split("/")
    return "/".join(quote(unquote_to_bytes(s), safe="-_.~") for s in segs)


def params_of(query):
    out = []
    for pair in query.split("&"):
        if not pair:
            continue
        k, _, v = pair.partition("=")
        out.append((unquote_to_bytes(k).decode("utf-8", "surrogateescape"),
                    unquote_to_bytes(v).decode("utf-8", "surrogateescape")))
    return out


def botocore_sign(case, body):
    parts = urlsplit(case["url"])
    url = "%s://%s%s" % (parts.scheme, parts.netloc, strict_path(parts.path))
    req = AWSRequest(method=case["method"], url=url, data=body)
    req.params = params_of(parts.query)
    for h in case.get("headers", []):
        name, _, value = h.partition(":")
        req.headers[name] = value.strip()
    is_unsigned = case.get("payload") == "unsigned"
    creds = Credentials(KEY_ID, SECRET, TOKEN if case.get("token") else None)
    if case["service"] == "s3":
        signer = auth.S3SigV4Auth(creds, "s3", case["region"])
        if is_unsigned:
            req.context["client_config"] = Config(s3={"payload_signing_enabled": False})
    else:
        signer = auth.SigV4Auth(creds, case["service"], case["region"])
        if is_unsigned:
            req.context["payload_signing_enabled"] = False
        else:
            # brink always sends and signs the payload's hash.
            req.headers["X-Amz-Content-SHA256"] = hashlib.sha256(body or b"").hexdigest()
    signer.add_auth(req)
    want = ["Authorization", "X-Amz-Date", "X-Amz-Content-SHA256"]
    if case.get("token"):
        want.append("X-Amz-Security-Token")
    return ["%s: %s" % (n, req.headers[n]) for n in want]


def brink_sign(tool, case, body_path):
    env = dict(os.environ, AWS_ACCESS_KEY_ID=KEY_ID, AWS_SECRET_ACCESS_KEY=SECRET)
    env.pop("AWS_SESSION_TOKEN", None)
    if case.get("token"):
        env["AWS_SESSION_TOKEN"] = TOKEN
    payload = "unsigned" if case.get("payload") == "unsigned" else "@" + body_path
    argv = [tool, str(UNIX), case["region"], case["service"], case["method"], case["url"],
            payload] + case.get("headers", [])
    out = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return ["sigv4_tool failed: " + out.stderr.strip()]
    return out.stdout.splitlines()


S3 = "http://127.0.0.1:9000"
CASES = [
    {"name": "s3 GET object, empty body", "method": "GET", "region": "us-east-1",
     "service": "s3", "url": S3 + "/bucket/key.txt", "body": b""},
    {"name": "s3 PUT 5 MiB part", "method": "PUT", "region": "eu-west-3", "service": "s3",
     "url": S3 + "/bucket/big.bin?partNumber=3&uploadId=VXBsb2FkIElE%2Bx%2Fy%3D%3D",
     "body": bytes(range(256)) * (5 * 4096), "headers": ["Content-Type: application/octet-stream"]},
    {"name": "s3 POST ?uploads (a key without value)", "method": "POST",
     "region": "us-east-1", "service": "s3", "url": S3 + "/bucket/multi?uploads",
     "body": b""},
    {"name": "s3 POST complete, XML body", "method": "POST", "region": "us-east-1",
     "service": "s3", "url": S3 + "/bucket/multi?uploadId=abc-123_x.y~z",
     "body": b"<CompleteMultipartUpload><Part><PartNumber>1</PartNumber>"
             b"<ETag>\"e\"</ETag></Part></CompleteMultipartUpload>",
     "headers": ["Content-Type: application/xml"]},
    {"name": "query with reserved characters, unencoded and encoded, repeated keys",
     "method": "GET", "region": "us-west-2", "service": "s3",
     "url": S3 + "/bucket?prefix=a%20b!*'()&delimiter=/&marker=%7efoo&a=2&a=1&a=10"
                 "&empty=&sp%20ace=x:y@z,$;q&plus=1+2&%C3%A9=%e2%82%ac",
     "body": b""},
    {"name": "path with reserved characters and UTF-8", "method": "GET",
     "region": "us-east-1", "service": "s3",
     "url": S3 + "/bucket/dir/a%20b+c=d:e@f!$&'()*,;%C3%A9%2Fslash/~tilde.txt",
     "body": b""},
    {"name": "s3 DELETE with a session token", "method": "DELETE", "region": "us-east-1",
     "service": "s3", "url": S3 + "/bucket/key", "token": True, "body": b""},
    {"name": "s3 PUT unsigned payload over https", "method": "PUT", "region": "us-east-1",
     "service": "s3", "url": "https://bucket.s3.amazonaws.com/object", "payload": "unsigned",
     "body": b"x" * 1000, "headers": ["Content-MD5: aGVsbG8="]},
    {"name": "s3 HEAD, default port left out of Host", "method": "HEAD",
     "region": "ap-southeast-2", "service": "s3",
     "url": "https://bucket.s3.amazonaws.com:443/a/b/c", "body": b""},
    {"name": "headers: blanks collapsed, repeated names joined, unsigned names left out",
     "method": "PUT", "region": "us-east-1", "service": "s3", "url": S3 + "/bucket/h",
     "headers": ["X-Amz-Meta-Note:   a   b \t c  ", "X-Custom: 1", "x-custom: 2",
                 "User-Agent: brink", "Expect: 100-continue", "Content-Type:  text/plain "],
     "body": b"hello"},
    {"name": "other service: path normalised and encoded twice", "method": "GET",
     "region": "us-east-1", "service": "execute-api",
     "url": "https://api.example.com/stage/./a//b/../c%20d/%C3%A9?x=1&y=a%2Fb",
     "body": b""},
    {"name": "other service: POST JSON with a session token", "method": "POST",
     "region": "eu-central-1", "service": "lambda",
     "url": "http://127.0.0.1:8080/2015-03-31/functions/f/invocations", "token": True,
     "headers": ["Content-Type: application/json"], "body": b'{"k": "v", "n": [1, 2]}'},
    {"name": "other service: unsigned payload", "method": "PATCH", "region": "us-east-1",
     "service": "execute-api", "url": "https://api.example.com/items/7", "payload": "unsigned",
     "body": b"{}"},
    {"name": "other service: empty path", "method": "GET", "region": "us-east-1",
     "service": "sts", "url": "https://sts.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15",
     "body": b""},
]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    tool = sys.argv[1]
    freeze_botocore_clock()
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, case in enumerate(CASES):
            body_path = os.path.join(tmp, "body%d" % i)
            with open(body_path, "wb") as f:
                f.write(case["body"])
            want = botocore_sign(case, case["body"] or None)
            got = brink_sign(tool, case, body_path)
            if got == want:
                print("ok   %s" % case["name"])
                continue
            failed += 1
            print("FAIL %s" % case["name"])
            for w, g in zip(want, got + [""] * len(want)):
                if w != g:
                    print("  botocore: %s\n  brink:    %s" % (w, g))
    print("%d of %d cases equal botocore's signatures" % (len(CASES) - failed, len(CASES)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
