package dev.cuckoo.server.persist;

import java.util.concurrent.CompletableFuture;

/** A caller that can run its command again later instead of waiting (a connection). */
@FunctionalInterface
public interface Retrier {
  /**
   * Asks for the current command to run again once {@code ready} completes; returns false if it
   * cannot, and the caller must wait itself.
   */
  boolean retryAfter(CompletableFuture<Void> ready);
}
