/**
 * Redis's serialization of a cuckoo filter: the {@code DUMP} / {@code RESTORE} payload of a
 * RedisBloom {@code MBbloomCF} value, byte for byte as Redis with RedisBloom writes it (RDB length
 * and string encodings, Redis's LZF compressor, CRC64), and the streaming reader of whole RDB files
 * and transfers ({@link dev.cuckoo.server.rdb.RdbReader}) that finds such values among Redis's
 * other types. A leaf: it depends on cuckoo-core and the JDK only. docs/DUMP.md describes the
 * payload, docs/RDB.md the reader.
 */
package dev.cuckoo.server.rdb;
