/* uftrace corpus: a few hundred short calls, one slow call and a recursion 12 deep, for buffer
   sizes, time filters, recorder threads and --max-stack (scripts/corpus/uftrace.sh). */
#include <stdio.h>
#include <unistd.h>

static int leaf(int x)
{
  return x + 1;
}

static int mid(int x)
{
  int s = 0;
  for (int i = 0; i < 4; i++)
    s += leaf(x + i);
  return s;
}

static void slow(void)
{
  usleep(2000);
}

static int recurse(int n)
{
  return n ? recurse(n - 1) + 1 : 0;
}

int main(void)
{
  int s = 0;
  for (int i = 0; i < 40; i++)
    s += mid(i);
  slow();
  s += recurse(12);
  printf("%d\n", s);
  return 0;
}
