/* Calls into a library loaded at run time with dlopen (recorded as a DLOP line in task.txt). */
#include <dlfcn.h>
#include <stdio.h>
static int before(int x) { return x + 1; }
int main(int argc, char **argv) {
    const char *lib = argc > 1 ? argv[1] : "./libuf_plugin.so";
    int s = before(1);
    void *h = dlopen(lib, RTLD_NOW);
    if (!h) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
    int (*work)(int) = (int (*)(int))dlsym(h, "plugin_work");
    if (work) s += work(4);
    dlclose(h);
    printf("%d\n", s + before(2));
    return 0;
}
