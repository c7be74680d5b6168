package dev.cuckoo.server.config;

/**
 * Whether CONFIG SET may change a parameter, as Redis's config.c flags it: {@code
 * IMMUTABLE_CONFIG}, {@code PROTECTED_CONFIG} (refused while {@code enable-protected-configs} is
 * off, which this server never turns on) or modifiable.
 */
public enum Mutability {
  /** Set at start-up only: CONFIG SET answers Redis's "can't set immutable config". */
  IMMUTABLE,
  /** Refused by CONFIG SET with Redis's "can't set protected config". */
  PROTECTED,
  /** CONFIG SET may change it while the server runs. */
  MUTABLE
}
