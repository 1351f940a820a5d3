# For end-to-end scripts that run every check once per transport: sourced
# after lib.sh, it replaces lib.sh's ok and not_ok with versions that put
# the transport under test ($transport) in front of the check's name.
# BRINK_TRANSPORTS narrows the transports the script loops over.
transports=${BRINK_TRANSPORTS:-curl h1}
transport=""

ok() {
    passed=$((passed + 1))
    printf 'ok   [%s] %s\n' "$transport" "$1"
}

not_ok() {
    failed=$((failed + 1))
    printf 'FAIL [%s] %s\n' "$transport" "$1"
    [ -n "${2:-}" ] && printf '     %s\n' "$2"
    return 0
}
