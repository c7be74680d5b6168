package dev.cuckoo.server.session;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.session.ClientPause.Mode;
import dev.cuckoo.server.session.ClientPause.Purpose;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The one pause with purposes, as Redis's pause_purpose: each purpose ends on its own (CLIENT
 * UNPAUSE never ends a failover's), commands wait until every purpose has ended, a purpose asked
 * again keeps its later end and ALL over WRITE.
 */
class ClientPausePurposeTest {
  private final ClientPause pause = new ClientPause();

  @Test
  void unpause_clientCommand_failoverStillHoldsWrites() throws Exception {
    pause.pause(Purpose.FAILOVER, Long.MAX_VALUE, Mode.WRITE);
    pause.pause(Purpose.CLIENT_COMMAND, Long.MAX_VALUE, Mode.ALL);
    CompletableFuture<Void> reads = pause.holds(false);
    assertNotNull(reads, "ALL holds reads");
    pause.unpause(Purpose.CLIENT_COMMAND);
    assertNull(pause.holds(false), "the failover's WRITE pause lets reads run");
    CompletableFuture<Void> writes = pause.holds(true);
    assertSame(reads, writes, "one wait for every purpose");
    assertFalse(writes.isDone());
    assertTrue(pause.active());
    pause.unpause(Purpose.FAILOVER);
    assertTrue(writes.isDone());
    assertFalse(pause.active());
    assertNull(pause.holds(true));
  }

  @Test
  void pause_samePurposeAgain_keepsTheLaterEndAndAll() throws Exception {
    long now = System.currentTimeMillis();
    pause.pause(Purpose.CLIENT_COMMAND, now + 60_000, Mode.ALL);
    pause.pause(Purpose.CLIENT_COMMAND, now, Mode.WRITE);
    CompletableFuture<Void> reads = pause.holds(false);
    assertNotNull(reads);
    // the earlier end's timer has nothing to end: the pause holds until its later end
    assertFalse(awaited(reads, 300), "ended at the earlier end");
    assertTrue(pause.active());
    pause.unpause(Purpose.CLIENT_COMMAND);
    assertTrue(reads.isDone());
  }

  @Test
  void pause_failoverEndPasses_endsOnlyTheFailoversPause() throws Exception {
    pause.pause(Purpose.CLIENT_COMMAND, Long.MAX_VALUE, Mode.WRITE);
    pause.pause(Purpose.FAILOVER, System.currentTimeMillis() + 100, Mode.WRITE);
    CompletableFuture<Void> writes = pause.holds(true);
    assertFalse(awaited(writes, 400), "CLIENT PAUSE still holds the writes");
    pause.unpause(Purpose.CLIENT_COMMAND);
    assertTrue(awaited(writes, 10_000), "the failover's pause ended at its end");
    assertFalse(pause.active());
  }

  @Test
  void unpause_purposeNotPaused_changesNothing() {
    pause.pause(Purpose.FAILOVER, Long.MAX_VALUE, Mode.WRITE);
    pause.unpause(Purpose.CLIENT_COMMAND);
    assertTrue(pause.active());
    assertNotNull(pause.holds(true));
  }

  private static boolean awaited(CompletableFuture<Void> future, long millis) throws Exception {
    try {
      future.get(millis, TimeUnit.MILLISECONDS);
      return true;
    } catch (java.util.concurrent.TimeoutException e) {
      return false;
    }
  }
}
