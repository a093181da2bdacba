/*
 * The C reference for Switchboard's `access` benchmark (issue 17): Debian's SIP parsers, sofia-sip,
 * libre and oSIP, each parsing every message of the bench corpus and reading what `switchboard-bench
 * --only access` reads (top Via host, port and branch; From and To user, host and tag; CSeq number and
 * method; Call-ID; the first Contact's host and port), in the same loop shape: a warm-up, then R
 * repetitions of N messages per file and of the mix. It prints the same RESULT lines (min, median, max ns
 * per message). Built and run by scripts/bench-parsers; not part of Package.swift. One file per parser
 * (sofia.c, libre.c, osip.c): their headers clash.
 *
 *   parsers [--n N] [--reps R] [--corpus DIR]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parsers.h"

static volatile size_t sink;

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *parser, const char *name, size_t bytes, double *samples, int reps, int n) {
    qsort(samples, (size_t)reps, sizeof(double), compare);
    printf("RESULT\t%s\taccess\t%s\t%zu\t%.0f\t%.0f\t%.0f\t%d\t%d\n", parser, name, bytes, samples[0], samples[reps / 2],
           samples[reps - 1], reps, n);
}

static void run(const char *parser, size_t (*one)(const struct file *), struct file *files, int count, int n, int reps) {
    double samples[reps];
    size_t total = 0;
    for (int w = 0; w < (n / 10 > 0 ? n / 10 : 1); w++)
        for (int i = 0; i < count; i++) sink += one(&files[i]);
    for (int i = 0; i < count; i++) {
        for (int r = 0; r < reps; r++) {
            double start = now_ns();
            for (int k = 0; k < n; k++) sink += one(&files[i]);
            samples[r] = (now_ns() - start) / n;
        }
        report(parser, files[i].name, files[i].size, samples, reps, n);
        total += files[i].size;
    }
    int rounds = n / 10 > 0 ? n / 10 : 1;
    for (int r = 0; r < reps; r++) {
        double start = now_ns();
        for (int k = 0; k < rounds; k++)
            for (int i = 0; i < count; i++) sink += one(&files[i]);
        samples[r] = (now_ns() - start) / (rounds * count);
    }
    report(parser, "mix", total / (size_t)count, samples, reps, n);
}

static int by_name(const void *a, const void *b) { return strcmp(((const struct file *)a)->name, ((const struct file *)b)->name); }

int main(int argc, char **argv) {
    int n = 20000, reps = 7;
    const char *corpus = "Tests/SIPMessageTests/Data/bench";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--n")) n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--corpus")) corpus = argv[i + 1];
        else { fprintf(stderr, "usage: parsers [--n N] [--reps R] [--corpus DIR]\n"); return 2; }
    }
    if (n < 1 || reps < 1 || reps > 1000) { fprintf(stderr, "parsers: bad --n or --reps\n"); return 2; }
    struct file files[64];
    int count = 0;
    DIR *dir = opendir(corpus);
    if (!dir) { perror(corpus); return 2; }
    for (struct dirent *e; (e = readdir(dir)) && count < 64;) {
        if (!strstr(e->d_name, ".sip")) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", corpus, e->d_name);
        FILE *fp = fopen(path, "rb");
        if (!fp) continue;
        fseek(fp, 0, SEEK_END);
        long size = ftell(fp);
        fseek(fp, 0, SEEK_SET);
        if (size <= 0 || size > 65536) { fclose(fp); continue; }
        struct file *f = &files[count];
        snprintf(f->name, sizeof f->name, "%.*s", (int)(strlen(e->d_name) - 4), e->d_name);
        f->bytes = malloc((size_t)size + 1);
        f->size = fread(f->bytes, 1, (size_t)size, fp);
        f->bytes[f->size] = 0;
        fclose(fp);
        count++;
    }
    closedir(dir);
    if (count == 0) { fprintf(stderr, "parsers: no .sip files in %s\n", corpus); return 2; }
    qsort(files, (size_t)count, sizeof files[0], by_name);
    osip_setup();
    re_setup();
    /* Every parser must accept every message, or the comparison is not like for like. */
    for (int i = 0; i < count; i++) {
        if (sofia_access(&files[i]) <= 1 || re_access(&files[i]) <= 1 || osip_access(&files[i]) <= 1) {
            fprintf(stderr, "parsers: a parser refused %s\n", files[i].name);
            return 1;
        }
    }
    run("sofia-sip", sofia_access, files, count, n, reps);
    run("libre", re_access, files, count, n, reps);
    run("osip2", osip_access, files, count, n, reps);
    re_teardown();
    return 0;
}
