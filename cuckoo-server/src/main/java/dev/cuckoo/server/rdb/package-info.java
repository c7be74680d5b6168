/**
 * Redis's serialization of a cuckoo filter: the {@code DUMP} / {@code RESTORE} payload of a
 * RedisBloom {@code MBbloomCF} value, byte for byte as Redis with RedisBloom writes it (RDB length
 * and string encodings, Redis's LZF compressor, CRC64). A leaf: it depends on cuckoo-core and the
 * JDK only. docs/DUMP.md describes the layout.
 */
package dev.cuckoo.server.rdb;
