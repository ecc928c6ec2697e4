/* Workload for scripts/corpus/perf.sh: a two-level call chain that burns CPU for about
   10 ms per unit of its argument, with an open/close and a short sleep between four rounds
   (syscalls, context switches). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void leaf(unsigned long n){ for(unsigned long i=0;i<n;i++) sink+=i*i; }
__attribute__((noinline)) static void mid(unsigned long n){ leaf(n); }
int main(int argc,char**argv){ unsigned long n = argc>1? 20000000UL*(unsigned long)atoi(argv[1]) : 20000000UL;
  for(int k=0;k<4;k++){ mid(n/4); int fd=open("/dev/null",O_RDONLY); close(fd); usleep(1000);} printf("%lu\n",sink); return 0; }
