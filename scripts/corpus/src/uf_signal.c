/* uftrace corpus: signal handlers that run traced code, entered from a traced function
   (raise) and from a timer signal while a traced function spins (scripts/corpus/uftrace.sh). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t hits;

static int in_handler(int sig)
{
  return sig + 1;
}

static void handler(int sig)
{
  hits += in_handler(sig) > 0;
}

static void install(int sig)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = handler;
  sigaction(sig, &sa, NULL);
}

static void wait_alarm(void)
{
  struct itimerval it = {{0, 0}, {0, 2000}};
  setitimer(ITIMER_REAL, &it, NULL);
  while (hits < 2)
    ;
}

int main(void)
{
  install(SIGUSR1);
  install(SIGALRM);
  raise(SIGUSR1);
  wait_alarm();
  printf("%d\n", (int) hits);
  return 0;
}
