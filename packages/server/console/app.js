// The console application (replaced below).
