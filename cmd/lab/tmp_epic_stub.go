package main

import "io"

func runEpic(args []string, stdin io.Reader, stdout, stderr io.Writer) int { return 1 }
