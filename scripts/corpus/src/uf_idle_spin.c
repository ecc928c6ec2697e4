/* uftrace corpus: thread body of uf_idle, built without -pg (no traced call in this thread). */
void *spin(void *arg)
{
  volatile long s = 0;
  for (long i = 0; i < (long) arg; i++)
    s += i;
  return (void *) s;
}
