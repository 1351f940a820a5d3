Command exited with non-zero status 2
0.01 0.00
