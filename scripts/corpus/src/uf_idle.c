/* uftrace corpus: one thread runs only code built without -pg (uf_idle_spin.c), so it makes no
   traced call and gets no <TID>.dat; another thread and main do (scripts/corpus/uftrace.sh). */
#include <pthread.h>
#include <stdio.h>

void *spin(void *arg); /* uf_idle_spin.c, not instrumented */

static int busy(int n)
{
  return n * 3;
}

static void *traced_thread(void *arg)
{
  return (void *) (long) busy((int) (long) arg);
}

int main(void)
{
  pthread_t a, b;
  void *ra, *rb;
  pthread_create(&a, NULL, spin, (void *) 100L);
  pthread_create(&b, NULL, traced_thread, (void *) 7L);
  pthread_join(a, &ra);
  pthread_join(b, &rb);
  printf("%ld %ld\n", (long) ra, (long) rb);
  return 0;
}
