/*
 * libyaml's C event parse of every file named, as Benchmarks/LibYAMLFloor/events.c, but with the text handed to
 * the scanner in the parser's character buffer instead of through libyaml's reader (what OAuthFlow's
 * YAMLReaderInput does for text the reader would accept unchanged), or with `--reader` first, through the reader.
 * Each file is read whole, a UTF-8 byte order mark left out and the encoding told, as lint reads it. Prints the
 * number of events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

int main(int argc, char **argv) {
    unsigned long events = 0;
    int reader = argc > 1 && !strcmp(argv[1], "--reader");
    for (int i = 1 + reader; i < argc; i++) {
        FILE *file = fopen(argv[i], "rb");
        if (!file) { perror(argv[i]); return 1; }
        fseek(file, 0, SEEK_END);
        long size = ftell(file);
        fseek(file, 0, SEEK_SET);
        unsigned char *bytes = calloc(size + 64, 1);
        if (fread(bytes, 1, size, file) != (size_t)size) { perror(argv[i]); return 1; }
        fclose(file);
        /* As lint does: a UTF-8 byte order mark left out, the encoding told. */
        if (size >= 3 && !memcmp(bytes, "\xef\xbb\xbf", 3)) { memmove(bytes, bytes + 3, size - 3); size -= 3; bytes[size] = 0; }
        size_t characters = 0;
        for (long k = 0; k < size; k++) characters += (bytes[k] & 0xC0) != 0x80;
        yaml_parser_t parser;
        yaml_parser_initialize(&parser);
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
        yaml_parser_set_input_string(&parser, bytes, size);
        unsigned char *own = parser.buffer.start, *own_end = parser.buffer.end;
        if (!reader) {
            parser.buffer.start = parser.buffer.pointer = bytes;
            parser.buffer.last = bytes + size + 1;
            parser.buffer.end = bytes + size + 64;
            parser.unread = characters + 1;
            parser.eof = 1;
        }
        yaml_event_t event;
        int done = 0;
        while (!done) {
            if (!yaml_parser_parse(&parser, &event)) { fprintf(stderr, "%s: %s\n", argv[i], parser.problem); return 1; }
            done = event.type == YAML_STREAM_END_EVENT;
            yaml_event_delete(&event);
            events++;
        }
        if (!reader) {
            parser.buffer.start = parser.buffer.pointer = parser.buffer.last = own;
            parser.buffer.end = own_end;
        }
        yaml_parser_delete(&parser);
        free(bytes);
    }
    printf("%lu\n", events);
    return 0;
}
