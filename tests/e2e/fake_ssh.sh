#!/bin/sh
# A stand-in for ssh in the agents' tests ([agents] ssh = sh fake_ssh.sh):
# drops ssh's options and the HOST word and runs the rest of the command
# here, as sshd would run it on HOST. No shell reads the command: its words
# are passed on as they are.
while [ $# -gt 0 ]; do
    case "$1" in
        -o | -p | -i | -l | -F) shift 2 ;;
        -*) shift ;;
        *) shift; break ;;
    esac
done
exec "$@"
