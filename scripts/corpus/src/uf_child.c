/* uftrace corpus: program exec'ed by uf_forkexec (scripts/corpus/uftrace.sh). */
#include <stdio.h>

static int child_work(int n)
{
  return n * n;
}

int main(void)
{
  printf("%d\n", child_work(7));
  return 0;
}
