/* uftrace corpus: fork without exec; parent and child both run traced code
   (scripts/corpus/uftrace.sh). */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int square(int x)
{
  return x * x;
}

static int child_part(int x)
{
  return square(x) + square(x + 1);
}

static int parent_part(pid_t pid)
{
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(void)
{
  int v = square(3);
  pid_t pid = fork();
  if (pid == 0)
    _exit(child_part(v) & 0x7f);
  printf("child exit %d\n", parent_part(pid));
  return 0;
}
