/*
 * script lib: Lua snippets run in a state with the sandbox and the brink
 * table, against published vectors (RFC 4648 base64, NIST SHA-256, RFC 4231
 * HMAC-SHA256) and files written into a fresh folder.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "script/lib.h"

/* The script folder of the whole run, made by setup_dir. */
static char dir[64];

static const char *const files[] = {"mod.lua",    "lib/util.lua", "loop_a.lua", "loop_b.lua",
                                    "binary.lua", "broken.lua",   "bang.lua",   "users.csv",
                                    "ids.txt",    "huge.txt",     "counted.lua"};

static void write_file(const char *name, const char *text, size_t len)
{
    char path[256];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void write_text(const char *name, const char *text)
{
    write_file(name, text, strlen(text));
}

static int setup_dir(void **state)
{
    char sub[128], path[256];

    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/test_script_lib.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(sub, sizeof(sub), "%s/lib", dir);
    if (mkdir(sub, 0700) != 0)
        return -1;
    write_text("mod.lua", "local M = {}\nfunction M.twice(x) return 2 * x end\nreturn M\n");
    write_text("lib/util.lua", "return {name = ...}\n");
    write_text("loop_a.lua", "return require('loop_b')\n");
    write_text("loop_b.lua", "return require('loop_a')\n");
    write_file("binary.lua", "\x1bLuaQ\0\1\4\10\4\10\0", 12);
    write_text("broken.lua", "local x = 1\nlocal y = = 2\n");
    write_text("bang.lua", "#!/usr/bin/env brink\nreturn 41 + 1\n");
    write_text("counted.lua", "loads = (loads or 0) + 1\nreturn loads\n");
    write_text("users.csv", "name,password\nann,\"p,1\"\nbob,\"say \"\"hi\"\"\"\n");
    write_text("ids.txt", "a\r\nb\n\nc");
    /* A sparse file one byte past the limit: its size is all that is read. */
    write_text("huge.txt", "");
    snprintf(path, sizeof(path), "%s/huge.txt", dir);
    if (truncate(path, (off_t)SCRIPT_DATA_MAX_BYTES + 1) != 0)
        return -1;
    return 0;
}

static int remove_dir(void **state)
{
    char path[256];

    (void)state;
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        unlink(path);
    }
    snprintf(path, sizeof(path), "%s/lib", dir);
    rmdir(path);
    return rmdir(dir);
}

/* A state with the sandbox and the library, bound to lib. */
static lua_State *new_state(struct script_lib *lib, uint64_t seed)
{
    lua_State *L = luaL_newstate();
    char err[SCRIPT_ERR_MAX];

    assert_non_null(L);
    memset(lib, 0, sizeof(*lib));
    lib->seed = seed;
    lib->script_dir = dir;
    assert_int_equal(script__sandbox(L, dir, err, sizeof(err)), 0);
    script__lib_open(L, lib);
    return L;
}

/* Runs code; returns 0, or the Lua error copied into err. */
static int run(lua_State *L, const char *code, char *err, size_t errlen)
{
    int rc = luaL_loadbufferx(L, code, strlen(code), "=test", "t");

    if (rc == LUA_OK)
        rc = lua_pcall(L, 0, 0, 0);
    if (rc != LUA_OK) {
        snprintf(err, errlen, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    return rc;
}

/* Runs code, which must succeed (its asserts included). */
static void lua_ok(lua_State *L, const char *code)
{
    char err[512];

    if (run(L, code, err, sizeof(err)) != LUA_OK)
        fail_msg("%s\n--- failed with: %s", code, err);
}

/* Runs code, which must fail with an error holding `want`. */
static void lua_fails(lua_State *L, const char *code, const char *want)
{
    char err[512];

    if (run(L, code, err, sizeof(err)) == LUA_OK)
        fail_msg("%s\n--- did not fail", code);
    if (!strstr(err, want))
        fail_msg("%s\n--- failed with: %s\n--- expected: %s", code, err, want);
}

/* ---- sandbox ---------------------------------------------------------- */

static void sandbox_leaves_no_files_processes_or_debug(void **state)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, 1);

    (void)state;
    lua_ok(L,
           "assert(io == nil and debug == nil and package == nil and ffi == nil and jit == nil)");
    lua_ok(L, "assert(dofile == nil and loadfile == nil and loadstring == nil and print == nil)");
    lua_ok(
        L,
        "assert(os.execute == nil and os.getenv == nil and os.remove == nil and os.exit == nil)");
    lua_ok(L, "assert(string.dump == nil)");
    lua_fails(L, "os.execute('true')", "attempt to call");
    lua_fails(L, "io.open('/etc/passwd')", "attempt to index");
    lua_ok(L, "assert(type(os.time()) == 'number' and os.clock() >= 0)");
    lua_ok(L, "assert(os.date('!%Y', 0) == '1970')");
    lua_ok(L, "assert(load('return 1 + 1')() == 2)");
    lua_ok(L, "assert((table.unpack or unpack)({1}) == 1 and string.rep('a', 3) == 'aaa')");
    lua_ok(L, "local co = coroutine.wrap(function() coroutine.yield(7) end) assert(co() == 7)");
    lua_close(L);
}

/* LuaJIT switches its compiler on in luaopen_jit only: the sandbox opens
 * it (scripts would run interpreted otherwise) and hides the table. */
static void luajit_compiler_is_on_and_hidden(void **state)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, 1);

    (void)state;
    lua_ok(L, "assert(jit == nil)");
#if LUA_VERSION_NUM < 502
    lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
    lua_getfield(L, -1, "jit");
    lua_getfield(L, -1, "status");
    assert_int_equal(lua_pcall(L, 0, 1, 0), LUA_OK);
    assert_true(lua_toboolean(L, -1));
#endif
    lua_close(L);
}

static void sandbox_refuses_bytecode(void **state)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, 1);
    char err[SCRIPT_ERR_MAX], path[256];

    (void)state;
    /* Lua 5.4 says "attempt to load a binary chunk", LuaJIT "... wrong mode". */
    lua_ok(L, "local f, e = load('\\27LuaQ\\0\\1\\4')\n"
              "assert(f == nil and (e:find('binary') or e:find('wrong mode')), e)");
    lua_ok(L, "local f, e = load('\\27Lua', 'x', 'b')\n"
              "assert(f == nil and (e:find('binary') or e:find('wrong mode')), e)");
    lua_ok(L, "assert(load('return 1', 'x', 'b')() == 1)");
    lua_fails(L, "require('binary')",
              "binary.lua: a precompiled chunk, but only Lua source is loaded");
    snprintf(path, sizeof(path), "%s/binary.lua", dir);
    assert_int_equal(script__load_file(L, path, "@binary.lua", err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "binary.lua: a precompiled chunk, but only Lua source is loaded");
    assert_int_equal(lua_gettop(L), 0);
    lua_close(L);
}

static void require_loads_only_from_the_script_folder(void **state)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, 1);

    (void)state;
    lua_ok(L, "assert(require('mod').twice(21) == 42)");
    lua_ok(L, "assert(require('lib.util').name == 'lib.util')");
    lua_ok(L, "assert(require('counted') == 1 and require('counted') == 1)");
    lua_fails(L, "require('../x')", "is not a module of the script's folder");
    lua_fails(L, "require('/etc/passwd')", "is not a module of the script's folder");
    lua_fails(L, "require('lib/util')", "is not a module of the script's folder");
    lua_fails(L, "require('a..b')", "is not a module of the script's folder");
    lua_fails(L, "require('')", "is not a module of the script's folder");
    lua_fails(L, "require('.mod')", "is not a module of the script's folder");
    lua_fails(L, "require('missing')", "missing.lua: cannot open");
    lua_fails(L, "require('loop_a')", "requires itself");
    lua_fails(L, "require('broken')", "broken.lua:2:");
    lua_close(L);
}

static void load_file_names_file_and_line(void **state)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, 1);
    char err[SCRIPT_ERR_MAX], path[256];

    (void)state;
    snprintf(path, sizeof(path), "%s/broken.lua", dir);
    assert_int_equal(script__load_file(L, path, "@broken.lua", err, sizeof(err)), -EINVAL);
    assert_true(strncmp(err, "broken.lua:2:", 13) == 0);
    snprintf(path, sizeof(path), "%s/nothing.lua", dir);
    assert_int_equal(script__load_file(L, path, "@nothing.lua", err, sizeof(err)), -ENOENT);
    assert_string_equal(err, "nothing.lua: cannot open: No such file or directory");
    /* A "#!" line is skipped and the line numbers stay the file's. */
    snprintf(path, sizeof(path), "%s/bang.lua", dir);
    assert_int_equal(script__load_file(L, path, "@bang.lua", err, sizeof(err)), 0);
    assert_int_equal(lua_pcall(L, 0, 1, 0), LUA_OK);
    assert_int_equal(lua_tointeger(L, -1), 42);
    lua_close(L);
}

/* ---- JSON ------------------------------------------------------------- */

static void json_round_trips(void **state)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, 1);

    (void)state;
    lua_ok(
        L,
        "local j = brink.json\n"
        "local t = '{\"a\":[1,2.5,{\"b\":null}],\"c\":\"x\\\\u00e9\",\"d\":true,\"e\":[]}'\n"
        "local v = j.decode(t)\n"
        "assert(v.a[1] == 1 and v.a[2] == 2.5 and v.a[3].b == j.null and v.d == true)\n"
        "assert(#v.a == 3 and v.c == 'x\\195\\169' and #v.e == 0)\n"
        "local s = j.encode(v)\n"
        "assert(s == '{\"a\":[1,2.5,{\"b\":null}],\"c\":\"x\\195\\169\",\"d\":true,\"e\":[]}', s)\n"
        "assert(j.encode(j.decode(s)) == s)");
    lua_ok(
        L,
        "local j = brink.json\n"
        "assert(j.encode({}) == '{}' and j.encode(j.array()) == '[]')\n"
        "assert(j.encode(j.array({})) == '[]' and j.encode({1, 2, 'x'}) == '[1,2,\"x\"]')\n"
        "assert(j.encode({b = 1, a = 2}) == '{\"a\":2,\"b\":1}')\n"
        "assert(j.encode(nil) == 'null' and j.encode(3) == '3' and j.encode(-0.5) == '-0.5')\n"
        "assert(j.encode(2^53) == '9007199254740992' and j.encode('a\\0b') == '\"a\\\\u0000b\"')\n"
        "assert(j.decode('\"a\\\\u0000b\"') == 'a\\0b' and j.decode('17') == 17)\n"
        "assert(j.decode('null') == j.null and j.decode('[null, 1]')[2] == 1)\n"
        "assert(j.decode('1e300') == 1e300 and j.decode('-12') == -12)");
    lua_close(L);
}

static void json_errors_say_what_and_where(void **state)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, 1);

    (void)state;
    lua_fails(L, "brink.json.decode('{\"a\":')", "brink.json.decode: line 1 column");
    lua_fails(L, "brink.json.decode('[1,]')", "brink.json.decode: line 1");
    lua_fails(L, "brink.json.decode(string.rep('[', 201) .. string.rep(']', 201))",
              "nested deeper than 200");
    lua_ok(L, "brink.json.decode(string.rep('[', 199) .. string.rep(']', 199))");
    lua_fails(L, "brink.json.encode({f = print or tostring})", "no form for");
    lua_fails(L, "brink.json.encode(0/0)", "NaN and infinity");
    lua_fails(L, "brink.json.encode(1/0)", "NaN and infinity");
    lua_fails(L, "brink.json.encode({1, x = 2})", "neither an array");
    lua_fails(L, "brink.json.encode({[1] = 1, [3] = 3})", "neither an array");
    lua_fails(L, "brink.json.encode({[true] = 1})", "neither an array");
    lua_fails(L, "brink.json.encode('\\255')", "not UTF-8");
    lua_fails(L, "brink.json.encode({['\\255'] = 1})", "not UTF-8");
    lua_fails(L, "local t = {} t.t = t brink.json.encode(t)", "nested too deep");
    lua_close(L);
}

/* ---- base64, hex, SHA-256, HMAC --------------------------------------- */

static void base64_matches_rfc4648(void **state)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, 1);

    (void)state;
    lua_ok(
        L,
        "local b = brink.base64\n"
        "local v = {[''] = '', f = 'Zg==', fo = 'Zm8=', foo = 'Zm9v', foob = 'Zm9vYg==',\n"
        "           fooba = 'Zm9vYmE=', foobar = 'Zm9vYmFy'}\n"
        "for k, e in pairs(v) do\n"
        "  assert(b.encode(k) == e, k) assert(b.decode(e) == k, e)\n"
        "  assert(b.decode(b.encode(k, 'url'), 'url') == k)\n"
        "end\n"
        "assert(b.encode('\\251\\255', 'url') == '-_8' and b.encode('\\251\\255') == '+/8=')\n"
        "assert(b.decode('-_8', 'url') == '\\251\\255' and b.decode('-_8=', 'url') == '\\251\\255')\n"
        "assert(b.encode('f', 'url') == 'Zg')");
    lua_fails(L, "brink.base64.decode('Zg=')", "not padded base64");
    lua_fails(L, "brink.base64.decode('Zh==')", "not padded base64");
    lua_fails(L, "brink.base64.decode('Zg')", "not padded base64");
    lua_fails(L, "brink.base64.decode('Z===')", "not padded base64");
    lua_fails(L, "brink.base64.decode('Zm 9v')", "not padded base64");
    lua_fails(L, "brink.base64.decode('-_8=')", "not padded base64");
    lua_fails(L, "brink.base64.decode('+/8=', 'url')", "not URL-safe base64");
    lua_fails(L, "brink.base64.encode('x', 'web')", "expected \"url\" or nothing");
    lua_close(L);
}

static void hex_round_trips_and_refuses_non_hex(void **state)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, 1);

    (void)state;
    lua_ok(
        L,
        "assert(brink.hex.encode('\\0\\255\\16a') == '00ff1061')\n"
        "assert(brink.hex.decode('00FF1061') == '\\0\\255\\16a' and brink.hex.decode('') == '')");
    lua_fails(L, "brink.hex.decode('abc')", "an odd number of digits (3)");
    lua_fails(L, "brink.hex.decode('0g')", "character 2 is not a hex digit");
    lua_close(L);
}

/* ---- pack and unpack --------------------------------------------------- */

static void pack_round_trips_in_both_byte_orders(void **state)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, 1);

    (void)state;
    lua_ok(
        L,
        "local p, u = brink.pack, brink.unpack\n"
        "assert(p('<I4', 0x01020304) == '\\4\\3\\2\\1' and p('>I4', 0x01020304) == '\\1\\2\\3\\4')\n"
        "assert(p('>i2', -2) == '\\255\\254' and p('<h', -2) == '\\254\\255')\n"
        "assert(p('b', -128) == '\\128' and p('B', 255) == '\\255' and p('>I3', 0x010203) == '\\1\\2\\3')\n"
        "assert(p('>j', -1) == string.rep('\\255', 8) and p('<J', 2^53) == '\\0\\0\\0\\0\\0\\0\\32\\0')\n"
        "assert(p('=I2', 1) == p('<I2', 1) or p('=I2', 1) == p('>I2', 1))\n"
        "local a, b, n = u('>I4 i2', '\\1\\2\\3\\4\\255\\254')\n"
        "assert(a == 0x01020304 and b == -2 and n == 7)\n"
        "assert(select(2, u('>i3', '\\255\\127\\255')) == 4 and u('>i3', '\\255\\127\\255') == -32769)\n"
        "assert(u('>j', string.rep('\\255', 8)) == -1 and u('<J', '\\0\\0\\0\\0\\0\\0\\32\\0') == 2^53)\n"
        "assert(p('<s4', 'abc') == '\\3\\0\\0\\0abc' and p('>s', 'a') == '\\0\\0\\0\\0\\0\\0\\0\\1a')\n"
        "assert(p('z', 'ab') == 'ab\\0' and p('x') == '\\0' and p('c5', 'ab') == 'ab\\0\\0\\0')\n"
        "local s = p('>BHs2zxc3', 1, 2, 'xy', 'q', 'abc')\n"
        "assert(s == '\\1\\0\\2\\0\\2xyq\\0\\0abc')\n"
        "local r = {u('>BHs2zxc3', s)}\n"
        "assert(#r == 6 and r[1] == 1 and r[2] == 2 and r[3] == 'xy' and r[4] == 'q'\n"
        "       and r[5] == 'abc' and r[6] == #s + 1)\n"
        "assert(select(1, u('>H', '\\0\\1\\0\\2', 3)) == 2 and select(2, u('>H', '\\0\\1\\0\\2', 3)) == 5)\n"
        "assert(select('#', u('c0', '')) == 2 and u('c0', '') == '')\n"
        /* Every size and both signs at the ends of their ranges. */
        "for n = 1, 8 do\n"
        "  local umax = math.min(2^(8 * n) - 1, 2^53)\n"
        "  local smin, smax = math.max(-2^(8 * n - 1), -2^53), math.min(2^(8 * n - 1) - 1, 2^53)\n"
        "  for _, v in ipairs({0, 1, umax}) do\n"
        "    local le, be = p('<I' .. n, v), p('>I' .. n, v)\n"
        "    assert(#le == n and le == be:reverse(), n)\n"
        "    assert(u('<I' .. n, le) == v and u('>I' .. n, be) == v, n)\n"
        "  end\n"
        "  for _, v in ipairs({smin, -1, 0, smax}) do\n"
        "    assert(u('<i' .. n, p('<i' .. n, v)) == v and u('>i' .. n, p('>i' .. n, v)) == v, n)\n"
        "  end\n"
        "end\n"
        /* The Lua 5.4 build has string.pack: the same bytes both ways. */
        "if string.pack then\n"
        "  for _, f in ipairs({'<i3', '>I5', '<j', '>h', 'B'}) do\n"
        "    assert(p(f, 77) == string.pack(f, 77), f)\n"
        "  end\n"
        "  assert(p('>s2zc4', 'ab', 'c', 'd') == string.pack('>s2zc4', 'ab', 'c', 'd'))\n"
        "end");
    lua_close(L);
}

static void pack_refuses_what_does_not_fit_and_says_where(void **state)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, 1);

    (void)state;
    lua_fails(L, "brink.pack('<I4', 2^32)",
              "brink.pack: format position 2 ('I4'): argument 2: 4294967296 does not fit: "
              "expected 0 to 4294967295");
    lua_fails(L, "brink.pack('B', -1)", "argument 2: -1 does not fit: expected 0 to 255");
    lua_fails(L, "brink.pack('b', 128)", "expected -128 to 127");
    lua_fails(L, "brink.pack('>h', -32769)", "expected -32768 to 32767");
    lua_fails(L, "brink.pack('j', 2^53 + 2)",
              "format position 1 ('j'): argument 2: 9007199254740994 is beyond 2^53");
    lua_fails(L, "brink.pack('J', -1)", "expected 0 to 9007199254740992");
    lua_fails(L, "brink.pack('I4', 1.5)", "argument 2: expected an integer, got 1.5");
    lua_fails(L, "brink.pack('I4', 1/0)", "argument 2: inf is beyond 2^53");
    lua_fails(L, "brink.pack('i4', 0/0)", "argument 2: expected an integer, got ");
    /* Lua 5.4's integers are compared as integers, not rounded to 2^53. */
    lua_ok(L, "if math.type then\n"
              "  local ok, e = pcall(brink.pack, 'j', math.tointeger(2^53) + 1)\n"
              "  assert(not ok and e:find('9007199254740993 is beyond 2^53', 1, true), e)\n"
              "end");
    lua_fails(L, "brink.pack('BI4', 1, '7')",
              "format position 2 ('I4'): argument 3: expected an integer, got string");
    lua_fails(L, "brink.pack('BI4', 1)",
              "format position 2 ('I4'): argument 3: expected a value, got none");
    lua_fails(L, "brink.pack('I4', 1, 2)", "brink.pack: the format takes 1 value, 2 given");
    lua_fails(L, "brink.pack('<i9', 1)",
              "format position 2 ('i9'): size out of range: expected 1 to 8");
    lua_fails(L, "brink.pack('s0', '')", "('s0'): size out of range: expected 1 to 8");
    lua_fails(L, "brink.pack('c', 'a')", "('c'): expected a size after 'c'");
    lua_fails(L, "brink.pack('c2', 'abc')", "argument 2: a string of 3 bytes is longer than 2");
    lua_fails(L, "brink.pack('z', 'a\\0b')",
              "('z'): argument 2: expected a string without zero bytes");
    lua_fails(L, "brink.pack('s1', string.rep('a', 256))",
              "a string of 256 bytes is too long for a length of 1 bytes");
    lua_fails(L, "brink.pack('s', {})", "argument 2: expected a string, got table");
    lua_fails(L, "brink.pack('<!4', 1)", "format position 2 ('!'): unknown option");
    lua_fails(L, "brink.pack(string.rep('x', 257))",
              "brink.pack: a format of at most 256 characters, got 257");
    lua_ok(L, "assert(#brink.pack(string.rep('x', 256)) == 256)");
    lua_ok(L, "assert(#brink.pack('c16777216', '') == 16777216)");
    lua_fails(L, "brink.pack('c16777216x', '')",
              "format position 10 ('x'): the packed string would be longer than 16 MiB");
    lua_fails(L, "brink.pack('c16777217', '')", "size out of range: expected 0 to 16777216");
    lua_close(L);
}

static void unpack_says_how_short_the_data_is(void **state)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, 1);

    (void)state;
    lua_fails(L, "brink.unpack('>I4', '\\1\\2')",
              "brink.unpack: format position 2 ('I4'): data too short: need 4 bytes at position 1, "
              "have 2");
    lua_fails(L, "brink.unpack('>HI4', '\\0\\1\\2')", "need 4 bytes at position 3, have 1");
    lua_fails(L, "brink.unpack('>s2', '\\0\\5abc')",
              "('s2'): data too short: need 5 bytes at position 3, have 3");
    lua_fails(L, "brink.unpack('<s', string.rep('\\255', 8))",
              "need 18446744073709551615 bytes at position 9, have 0");
    lua_fails(L, "brink.unpack('Bz', 'xabc')",
              "format position 2 ('z'): data too short: no zero byte ends the string at position 2 "
              "(3 bytes left)");
    lua_fails(L, "brink.unpack('x', '')",
              "('x'): data too short: need 1 bytes at position 1, have 0");
    lua_fails(L, "brink.unpack('c3', 'ab')", "need 3 bytes at position 1, have 2");
    lua_fails(L, "brink.unpack('>J', string.rep('\\255', 8))",
              "('J'): 18446744073709551615 is beyond 2^53");
    lua_fails(L, "brink.unpack('>j', '\\128' .. string.rep('\\0', 7))",
              "('j'): -9223372036854775808 is beyond 2^53");
    lua_fails(L, "brink.unpack('>J', '\\0\\32\\0\\0\\0\\0\\0\\1')",
              "9007199254740993 is beyond 2^53");
    lua_fails(L, "brink.unpack('I4', 'abcd', 6)",
              "brink.unpack: argument 3: expected a position from 1 to 5");
    lua_fails(L, "brink.unpack('I4', 'abcd', 0)", "expected a position from 1 to 5");
    lua_fails(L, "brink.unpack('I4', 'abcd', 1.5)", "expected a position from 1 to 5");
    lua_fails(L, "brink.unpack('q', '')", "brink.unpack: format position 1 ('q'): unknown option");
    /* As many values as a format can hold, and the next position. */
    lua_ok(
        L,
        "assert(select('#', brink.unpack(string.rep('B', 256), string.rep('\\1', 256))) == 257)");
    lua_close(L);
}

static void sha256_and_hmac_match_published_vectors(void **state)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, 1);

    (void)state;
    /* FIPS 180-2 appendix B (one and two blocks), and the empty string. */
    lua_ok(L, "assert(brink.sha256('') == "
              "'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')\n"
              "assert(brink.sha256('abc') == "
              "'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')\n"
              "assert(brink.sha256('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq') == "
              "'248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1')\n"
              "assert(brink.hex.encode(brink.sha256('abc', 'raw')) == brink.sha256('abc'))");
    /* RFC 4231 test cases 1, 2, 3 and 6 (a key longer than a block). */
    lua_ok(
        L,
        "local h = brink.hmac_sha256\n"
        "assert(h(string.rep('\\11', 20), 'Hi There') == "
        "'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7')\n"
        "assert(h('Jefe', 'what do ya want for nothing?') == "
        "'5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843')\n"
        "assert(h(string.rep('\\170', 20), string.rep('\\221', 50)) == "
        "'773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe')\n"
        "assert(h(string.rep('\\170', 131), "
        "'Test Using Larger Than Block-Size Key - Hash Key First') == "
        "'60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54')\n"
        "assert(#h('k', 'm', 'raw') == 32 and brink.hex.encode(h('k', 'm', 'raw')) == h('k', 'm'))");
    lua_fails(L, "brink.sha256('x', 'binary')", "expected \"raw\" or nothing");
    lua_fails(L, "brink.hmac_sha256('k')", "bad argument #2");
    lua_close(L);
}

/* ---- uuid and random -------------------------------------------------- */

/* Runs code returning a string in a fresh state seeded with seed. */
static void draws(uint64_t seed, const char *code, char *out, size_t cap)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, seed);

    assert_int_equal(luaL_loadstring(L, code), LUA_OK);
    assert_int_equal(lua_pcall(L, 0, 1, 0), LUA_OK);
    snprintf(out, cap, "%s", lua_tostring(L, -1));
    lua_close(L);
}

static void uuid_is_v4_and_repeats_per_seed(void **state)
{
    static const char code[] =
        "local t = {} for i = 1, 4 do\n"
        "  local u = brink.uuid()\n"
        "  assert(u:match('^%x%x%x%x%x%x%x%x%-%x%x%x%x%-4%x%x%x%-[89ab]%x%x%x%-"
        "%x%x%x%x%x%x%x%x%x%x%x%x$'), u)\n"
        "  t[i] = u end\n"
        "assert(t[1] ~= t[2])\n"
        "return table.concat(t, ' ')";
    char a[256], b[256], c[256];

    (void)state;
    draws(7, code, a, sizeof(a));
    draws(7, code, b, sizeof(b));
    draws(8, code, c, sizeof(c));
    assert_string_equal(a, b);
    assert_string_not_equal(a, c);
}

static void random_repeats_per_seed_and_keeps_its_bounds(void **state)
{
    static const char code[] =
        "local t = {} for i = 1, 50 do t[i] = brink.random(1, 1000000) end\n"
        "t[#t + 1] = math.random(10) t[#t + 1] = string.format('%.17g', math.random())\n"
        "return table.concat(t, ' ')";
    struct script_lib lib;
    lua_State *L;
    char a[1024], b[1024], c[1024];
    uint64_t r1, r2;

    (void)state;
    draws(42, code, a, sizeof(a));
    draws(42, code, b, sizeof(b));
    draws(43, code, c, sizeof(c));
    assert_string_equal(a, b);
    assert_string_not_equal(a, c);

    L = new_state(&lib, 42);
    lua_ok(L,
           "local seen = {}\n"
           "for i = 1, 2000 do\n"
           "  local d = brink.random(6) assert(d >= 1 and d <= 6 and d % 1 == 0) seen[d] = true\n"
           "  local x = brink.random(-3, 3) assert(x >= -3 and x <= 3)\n"
           "  local f = brink.random() assert(f >= 0 and f < 1)\n"
           "end\n"
           "for d = 1, 6 do assert(seen[d], d) end\n"
           "assert(brink.random(5, 5) == 5 and brink.random(3.0) <= 3)\n"
           "assert(math.random == brink.random and math.randomseed == nil)");
    lua_fails(L, "brink.random(2, 1)", "the interval [2, 1] is empty");
    lua_fails(L, "brink.random(1.5)", "argument 1: expected an integer");
    lua_fails(L, "brink.random(1, 2, 3)", "at most 2 arguments");
    lua_close(L);

    /* Streams of one seed differ; the same stream repeats. */
    script__rng_seed(&r1, 42, 1);
    script__rng_seed(&r2, 42, 2);
    assert_true(r1 != r2);
    script__rng_seed(&r2, 42, 1);
    assert_true(r1 == r2);
}

/* ---- checks, counters, gauges ----------------------------------------- */

static void checks_count_per_name(void **state)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, 1);

    (void)state;
    lua_ok(L, "for i = 1, 3 do assert(brink.check(true, 'status is 200') == true) end\n"
              "assert(brink.check(nil, 'status is 200') == false)\n"
              "brink.check(1 == 2, 'has id')");
    assert_int_equal(lib.n_checks, 2);
    assert_string_equal(lib.checks[0].name, "status is 200");
    assert_int_equal(lib.checks[0].passed, 3);
    assert_int_equal(lib.checks[0].failed, 1);
    assert_string_equal(lib.checks[1].name, "has id");
    assert_int_equal(lib.checks[1].passed, 0);
    assert_int_equal(lib.checks[1].failed, 1);
    script__lib_reset(&lib);
    assert_int_equal(lib.n_checks, 2);
    assert_int_equal(lib.checks[0].passed + lib.checks[0].failed, 0);
    lua_fails(L, "brink.check(true, '')", "a name of 1 to 63 bytes, got 0");
    lua_fails(L, "brink.check(true, string.rep('x', 64))", "a name of 1 to 63 bytes, got 64");
    lua_ok(L, "brink.check(true, string.rep('x', 63))");
    lua_fails(L, "brink.check(true, 'a\\0b')", "a name without NUL bytes");
    lua_close(L);
}

static void names_past_the_table_are_dropped_and_counted(void **state)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, 1);

    (void)state;
    lua_ok(L, "for i = 1, 40 do brink.check(true, 'c' .. i) brink.counter('n' .. i) end\n"
              "brink.check(true, 'c1')");
    assert_int_equal(lib.n_checks, SCRIPT_NAMES_MAX);
    assert_int_equal(lib.n_metrics, SCRIPT_NAMES_MAX);
    assert_int_equal(lib.checks[0].passed, 2);
    assert_int_equal(lib.names_dropped, 2 * (40 - SCRIPT_NAMES_MAX));
    assert_int_equal(lib.dropped[0], 40 - SCRIPT_NAMES_MAX);
    assert_int_equal(lib.dropped[1], 40 - SCRIPT_NAMES_MAX);
    assert_string_equal(lib.dropped_name[0], "c33");
    assert_string_equal(lib.dropped_name[1], "n33");
    assert_int_equal(lib.metrics[0].calls, 1);
    script__lib_reset(&lib);
    assert_int_equal(lib.names_dropped, 2 * (40 - SCRIPT_NAMES_MAX));
    assert_int_equal(lib.dropped[0] + lib.dropped[1], 0);
    assert_int_equal(lib.metrics[0].calls, 0);
    assert_string_equal(lib.dropped_name[0], "c33");
    lua_close(L);
}

static void counters_add_and_gauges_keep_the_last_value(void **state)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, 1);

    (void)state;
    lua_ok(L, "brink.counter('bytes') brink.counter('bytes', 2.5) brink.gauge('queue', 7)\n"
              "brink.gauge('queue', 3)");
    assert_int_equal(lib.n_metrics, 2);
    assert_string_equal(lib.metrics[0].name, "bytes");
    assert_false(lib.metrics[0].is_gauge);
    assert_true(lib.metrics[0].value == 3.5 && lib.metrics[0].is_set);
    assert_true(lib.metrics[1].is_gauge && lib.metrics[1].value == 3);
    script__lib_reset(&lib);
    assert_true(lib.metrics[0].value == 0 && !lib.metrics[0].is_set);
    assert_true(lib.metrics[1].value == 3 && !lib.metrics[1].is_set);
    lua_fails(L, "brink.gauge('bytes', 1)", "\"bytes\" is a counter already");
    lua_fails(L, "brink.counter('queue')", "\"queue\" is a gauge already");
    lua_fails(L, "brink.counter('bytes', 0/0)", "expected a finite number");
    lua_fails(L, "brink.gauge('queue')", "bad argument #2");
    lua_close(L);
}

/* ---- setup data ------------------------------------------------------- */

/* Parses text as CSV (with a header when has_header) into a fresh set;
 * returns the code, and err. */
static int parse_csv(const char *text, int has_header, char *err, size_t errlen)
{
    struct script_data_set *set = script__data_set_new();
    int rc = script__data_parse(set, "t", SCRIPT_DATA_CSV, has_header, "t.csv", text, strlen(text),
                                err, errlen);

    script__data_set_free(set);
    return rc;
}

static void csv_follows_rfc4180(void **state)
{
    struct script_lib lib;
    lua_State *L = new_state(&lib, 1);
    struct script_data_set *set = script__data_set_new();
    static const char text[] = "\xef\xbb\xbf"
                               "a,\"b,c\",\"say \"\"hi\"\"\"\r\n"
                               "\r\n"
                               ",\"line\none\",\r\n"
                               "\"\",x,\"\"\"\"\n"
                               "\n"
                               "last,row,no newline";
    char err[SCRIPT_ERR_MAX];

    (void)state;
    assert_int_equal(script__data_parse(set, "t", SCRIPT_DATA_CSV, 0, "t.csv", text,
                                        sizeof(text) - 1, err, sizeof(err)),
                     0);
    lib.data = set;
    lua_ok(
        L,
        "local d = brink.data('t')\n"
        "assert(#d == 4, #d)\n"
        "local r = d[1] assert(#r == 3 and r[1] == 'a' and r[2] == 'b,c' and r[3] == 'say \"hi\"')\n"
        "r = d[2] assert(r[1] == '' and r[2] == 'line\\none' and r[3] == '')\n"
        "r = d[3] assert(r[1] == '' and r[2] == 'x' and r[3] == '\"')\n"
        "r = d[4] assert(r[3] == 'no newline')\n"
        "assert(d[0] == nil and d[5] == nil and tostring(d) == 'data set \"t\" (4 rows)')");
    lua_fails(L, "local x = brink.data('t').name", "rows are numbered 1 to 4, got a string");
    lua_close(L);
    script__data_set_free(set);
}

static void csv_errors_name_file_and_line(void **state)
{
    char err[SCRIPT_ERR_MAX];

    (void)state;
    assert_int_equal(parse_csv("a,b\n\"open,x\nmore\n", 0, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "t.csv:2: a quoted field is not closed");
    assert_int_equal(parse_csv("a,b\nx,y\"z\n", 0, err, sizeof(err)), -EINVAL);
    assert_string_equal(
        err,
        "t.csv:2: a quote inside an unquoted field (quote the whole field and write the quote as \"\")");
    assert_int_equal(parse_csv("a,\"b\"c\n", 0, err, sizeof(err)), -EINVAL);
    assert_string_equal(
        err,
        "t.csv:1: text after the closing quote of a field (a quote inside a quoted field is written \"\")");
    /* The record after a two-line field starts on line 3. */
    assert_int_equal(parse_csv("a,\"b\nc\"\nx\n", 0, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "t.csv:3: 1 fields, but the first record has 2");
    assert_int_equal(parse_csv("", 1, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "t.csv: no header record (the file is empty)");
    assert_int_equal(parse_csv("", 0, err, sizeof(err)), 0);
    assert_int_equal(parse_csv("a,b,\n1,2,\n", 0, err, sizeof(err)), 0);
}

static void setup_loads_once_and_workers_read_the_same_rows(void **state)
{
    struct script_data_set *set = script__data_set_new();
    struct script_lib main_lib, worker_lib;
    lua_State *setup = new_state(&main_lib, 1), *worker;

    (void)state;
    main_lib.data = set;
    main_lib.may_load = 1;
    lua_ok(setup, "local u = brink.load_csv('users.csv', {header = true})\n"
                  "assert(#u == 2 and u[1].name == 'ann' and u[1].password == 'p,1')\n"
                  "assert(u[2].password == 'say \"hi\"')\n"
                  "local ids = brink.load_lines('ids.txt', {name = 'ids'})\n"
                  "assert(#ids == 3 and ids[1] == 'a' and ids[2] == 'b' and ids[3] == 'c')");
    lua_fails(setup, "brink.load_lines('ids.txt', {name = 'ids'})", "is loaded already");
    lua_fails(setup, "brink.load_lines('ids.txt', {header = true})", "unknown option \"header\"");
    lua_fails(setup, "brink.load_csv('../users.csv')",
              "expected a path relative to the script's folder");
    lua_fails(setup, "brink.load_csv('/etc/passwd')",
              "expected a path relative to the script's folder");
    lua_fails(setup, "brink.load_csv('lib/./x.csv')",
              "expected a path relative to the script's folder");
    lua_fails(setup, "brink.load_lines('missing.txt')",
              "brink.load_lines: missing.txt: cannot open");
    lua_fails(setup, "brink.load_lines('huge.txt')",
              "huge.txt: larger than 67108864 bytes (the limit of a data file)");
    lua_close(setup);

    worker = new_state(&worker_lib, 2);
    worker_lib.data = set;
    lua_ok(worker, "local u = brink.data('users.csv') assert(u[2].name == 'bob')\n"
                   "assert(brink.data('ids')[3] == 'c')");
    lua_fails(worker, "brink.load_lines('ids.txt', {name = 'x'})",
              "data is loaded by the setup function only");
    lua_fails(worker, "brink.data('nope')", "no data set named \"nope\"");
    lua_fails(worker, "getmetatable(brink.data('ids')).__index = nil", "attempt to index");
    lua_close(worker);
    script__data_set_free(set);
}

static void data_is_bounded(void **state)
{
    struct script_data_set *set = script__data_set_new();
    char err[SCRIPT_ERR_MAX], name[16];
    size_t n = 2 * ((size_t)SCRIPT_DATA_MAX_ITEMS + 1);
    char *text = malloc(n);

    (void)state;
    assert_non_null(text);
    for (size_t i = 0; i < n; i += 2)
        memcpy(text + i, "x\n", 2);
    assert_int_equal(script__data_parse(set, "many", SCRIPT_DATA_LINES, 0, "many.txt", text, n, err,
                                        sizeof(err)),
                     -EFBIG);
    assert_string_equal(err, "many.txt: more than 8388608 lines (the limit of a data file)");
    assert_int_equal(
        script__data_parse(set, "many", SCRIPT_DATA_CSV, 0, "many.csv", text, n, err, sizeof(err)),
        -EFBIG);
    assert_string_equal(err, "many.csv: more than 8388608 fields (the limit of a data file)");
    /* One line fewer fits. */
    assert_int_equal(script__data_parse(set, "most", SCRIPT_DATA_LINES, 0, "most.txt", text, n - 2,
                                        err, sizeof(err)),
                     0);
    free(text);
    for (int i = 1; i < SCRIPT_DATA_SETS_MAX; i++) {
        snprintf(name, sizeof(name), "s%d", i);
        assert_int_equal(
            script__data_parse(set, name, SCRIPT_DATA_LINES, 0, "s.txt", "a", 1, err, sizeof(err)),
            0);
    }
    assert_int_equal(script__data_parse(set, "one more", SCRIPT_DATA_LINES, 0, "s.txt", "a", 1, err,
                                        sizeof(err)),
                     -ENOSPC);
    assert_string_equal(err, "s.txt: more than 16 data sets");
    script__data_set_free(set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sandbox_leaves_no_files_processes_or_debug),
        cmocka_unit_test(luajit_compiler_is_on_and_hidden),
        cmocka_unit_test(sandbox_refuses_bytecode),
        cmocka_unit_test(require_loads_only_from_the_script_folder),
        cmocka_unit_test(load_file_names_file_and_line),
        cmocka_unit_test(json_round_trips),
        cmocka_unit_test(json_errors_say_what_and_where),
        cmocka_unit_test(base64_matches_rfc4648),
        cmocka_unit_test(hex_round_trips_and_refuses_non_hex),
        cmocka_unit_test(pack_round_trips_in_both_byte_orders),
        cmocka_unit_test(pack_refuses_what_does_not_fit_and_says_where),
        cmocka_unit_test(unpack_says_how_short_the_data_is),
        cmocka_unit_test(sha256_and_hmac_match_published_vectors),
        cmocka_unit_test(uuid_is_v4_and_repeats_per_seed),
        cmocka_unit_test(random_repeats_per_seed_and_keeps_its_bounds),
        cmocka_unit_test(checks_count_per_name),
        cmocka_unit_test(names_past_the_table_are_dropped_and_counted),
        cmocka_unit_test(counters_add_and_gauges_keep_the_last_value),
        cmocka_unit_test(csv_follows_rfc4180),
        cmocka_unit_test(csv_errors_name_file_and_line),
        cmocka_unit_test(setup_loads_once_and_workers_read_the_same_rows),
        cmocka_unit_test(data_is_bounded),
    };

    return cmocka_run_group_tests(tests, setup_dir, remove_dir);
}
