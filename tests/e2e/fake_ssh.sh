#!/bin/sh
# A stand-in for ssh in the agents' tests ([agents] ssh = sh fake_ssh.sh):
# drops ssh's options and the HOST word and runs the rest of the command
# here, as sshd would run it on HOST, with BRINK_FAKE_HOST=HOST in its
# environment (so a test can tell the agents apart). No shell reads the
# command: its words are passed on as they are.
while [ $# -gt 0 ]; do
    case "$1" in
        -o | -p | -i | -l | -F) shift 2 ;;
        -*) shift ;;
        *) BRINK_FAKE_HOST=$1; export BRINK_FAKE_HOST; shift; break ;;
    esac
done
exec "$@"
