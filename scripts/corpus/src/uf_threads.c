/* uftrace corpus: two worker threads (scripts/corpus/uftrace.sh). */
#include <pthread.h>
#include <stdio.h>

static int work(int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += i;
  return s;
}

static void *worker(void *arg)
{
  long id = (long) arg;
  return (void *) (long) work(10 + (int) id);
}

int main(void)
{
  pthread_t t[2];
  void *r;
  long sum = 0;
  for (long i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, (void *) i);
  for (int i = 0; i < 2; i++) {
    pthread_join(t[i], &r);
    sum += (long) r;
  }
  printf("%ld\n", sum);
  return 0;
}
