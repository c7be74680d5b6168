package dev.cuckoo.server.config;

/** How often the append-only log is forced to disk ({@code appendfsync}). */
public enum Fsync {
  /** Before each batch of replies is sent: an acknowledged write is on disk. */
  ALWAYS,
  /** Once a second, in the background. */
  EVERYSEC,
  /** Never explicitly; the operating system decides. */
  NO
}
