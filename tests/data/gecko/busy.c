#include <stdio.h>
static volatile long sink;
__attribute__((noinline)) static void leaf(long n){ for(long i=0;i<n;i++) sink+=i; }
__attribute__((noinline)) static void mid(long n){ leaf(n); leaf(n/2); }
int main(void){ for(int k=0;k<60;k++) mid(400000); return 0; }
