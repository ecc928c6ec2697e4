/* Second translation unit of tpmulti (scripts/corpus/gdb.sh): another static `step`, and a
   global larger than 64 KiB for a memory range that one M block cannot hold. */
char tm_big[70000] = "tracelint big range";

static int step(int n)
{
  return n - 2;
}

int tm_other(int n)
{
  tm_big[n] = (char) n;
  return step(n) + 1;
}
