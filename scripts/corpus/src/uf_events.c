/* uftrace corpus: user SDT probes for uftrace -E (scripts/corpus/uftrace.sh). */
#include <stdio.h>
#include <sys/sdt.h>

static int step(int i)
{
  DTRACE_PROBE1(corpus, step, i);
  return i * i;
}

int main(void)
{
  int s = 0;
  DTRACE_PROBE(corpus, begin);
  for (int i = 0; i < 3; i++)
    s += step(i);
  DTRACE_PROBE2(corpus, end, s, 42);
  printf("%d\n", s);
  return 0;
}
