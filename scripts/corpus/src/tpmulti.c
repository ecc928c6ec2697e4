/* Second target program for the GDB tracepoint corpus (scripts/corpus/gdb.sh): two static
   functions named `step`, one here and one in tpmulti2.c, so that `trace step` resolves to
   two locations (glibc's compat symbol `step` may add a third). The script stops the trace
   run at the line marked with the END-LINE comment. */
#include <stdio.h>

int tm_other(int n);

static int step(int n)
{
  return n * 3 + 1;
}

int main(void)
{
  int i, t = 0;
  for (i = 0; i < 3; i++)
    t += step(i) + tm_other(i);
  printf("%d\n", t); /* END-LINE */
  return 0;
}
