/* uftrace corpus: fork, the child execs another traced program (scripts/corpus/uftrace.sh).
   Usage: uf_forkexec PATH-OF-CHILD-PROGRAM */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int before_fork(int x)
{
  return x + 1;
}

static int in_child(int x)
{
  return x * 2;
}

static int in_parent(int pid)
{
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char **argv)
{
  int v = before_fork(1);
  pid_t pid = fork();
  if (pid == 0) {
    in_child(v);
    if (argc > 1)
      execl(argv[1], argv[1], (char *) NULL);
    _exit(0);
  }
  printf("child exit %d\n", in_parent(pid));
  return 0;
}
