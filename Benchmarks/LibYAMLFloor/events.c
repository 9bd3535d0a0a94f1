/*
 * The lint benchmark's floor: libyaml (the copy Yams bundles, built -O2 like the release build's C)
 * parsing every file named on the command line into events, and nothing else. Each file is read
 * whole, as lint reads it. Prints the number of events, so the work cannot be optimised away.
 */
#include <stdio.h>
#include <stdlib.h>
#include <yaml.h>

int main(int argc, char **argv) {
    unsigned long events = 0;
    for (int i = 1; i < argc; i++) {
        FILE *file = fopen(argv[i], "rb");
        if (!file) { perror(argv[i]); return 1; }
        fseek(file, 0, SEEK_END);
        long size = ftell(file);
        fseek(file, 0, SEEK_SET);
        unsigned char *bytes = malloc(size > 0 ? size : 1);
        if (fread(bytes, 1, size, file) != (size_t)size) { perror(argv[i]); return 1; }
        fclose(file);
        yaml_parser_t parser;
        yaml_parser_initialize(&parser);
        yaml_parser_set_input_string(&parser, bytes, size);
        yaml_event_t event;
        int done = 0;
        while (!done) {
            if (!yaml_parser_parse(&parser, &event)) { fprintf(stderr, "%s: %s\n", argv[i], parser.problem); return 1; }
            done = event.type == YAML_STREAM_END_EVENT;
            yaml_event_delete(&event);
            events++;
        }
        yaml_parser_delete(&parser);
        free(bytes);
    }
    printf("%lu\n", events);
    return 0;
}
