package dev.cuckoo.bench;

/** The kinds of keys the benchmarks feed to every filter. */
public enum KeyType {
  /** Random 64-bit integers. */
  LONG,
  /** URL-like strings of 40 to 70 ASCII characters. */
  URL
}
