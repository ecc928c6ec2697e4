/* Second translation unit of tpmulti (scripts/corpus/gdb.sh): another static `step`. */
static int step(int n)
{
  return n - 2;
}

int tm_other(int n)
{
  return step(n) + 1;
}
