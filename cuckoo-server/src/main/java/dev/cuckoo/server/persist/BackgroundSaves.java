package dev.cuckoo.server.persist;

import dev.cuckoo.server.keyspace.HeapGuard;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/** Runs one snapshot at a time on a background thread and reports how it ended. */
final class BackgroundSaves {
  private static final System.Logger LOGGER = System.getLogger(BackgroundSaves.class.getName());

  /** A snapshot: {@code background} says whether a client waits for it. */
  @FunctionalInterface
  interface Save {
    void run(boolean background) throws IOException;
  }

  private final Executor executor;
  private final Save save;
  private final AtomicBoolean running = new AtomicBoolean();

  BackgroundSaves(Executor executor, Save save) {
    this.executor = executor;
    this.save = save;
  }

  /** See {@link Snapshots#saveAsync}. */
  CompletableFuture<String> start(boolean background) {
    if (!running.compareAndSet(false, true)) {
      return null;
    }
    CompletableFuture<String> done = new CompletableFuture<>();
    try {
      executor.execute(
          () -> {
            String error = null;
            try {
              save.run(background);
            } catch (OutOfMemoryError e) {
              HeapGuard.fatal("a background save", e);
            } catch (IOException | RuntimeException e) {
              LOGGER.log(Level.ERROR, "snapshot failed", e);
              error = describe(e);
            } finally {
              // cleared before the reply goes out: a SAVE right after it must not find one running
              running.set(false);
            }
            done.complete(error);
          });
    } catch (RejectedExecutionException e) {
      running.set(false);
      return null;
    }
    return done;
  }

  /** Returns true while a snapshot started here runs. */
  boolean running() {
    return running.get();
  }

  /** Returns an I/O failure's message as an error reply carries it ("No space left on device"). */
  static String describe(Throwable e) {
    String message = e.getMessage();
    if (message != null && message.contains("No space left on device")) {
      return "No space left on device";
    }
    return message == null ? e.getClass().getSimpleName() : message;
  }
}
