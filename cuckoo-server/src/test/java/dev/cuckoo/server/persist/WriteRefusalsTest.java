package dev.cuckoo.server.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class WriteRefusalsTest {
  private static final String OOM = "OOM command not allowed when used memory > 'maxmemory'.";
  private static final String LOG_FAILURE = "MISCONF Errors writing to the AOF file: disk full";

  private final WriteRefusals refusals = new WriteRefusals();
  private final Object log = new Object();

  @Test
  void refusal_everyInputAtOnce_redisOrder() {
    refusals.logInForce(log);
    refusals.logFailure(log, LOG_FAILURE);
    refusals.role(true, false);
    refusals.replicationSettings(true, false, 0, 0);
    assertEquals(LOG_FAILURE, refusals.refusal(true, OOM, true));
    refusals.logFailure(log, null);
    assertEquals(WriteRefusals.READONLY, refusals.refusal(true, OOM, true));
    refusals.replicationSettings(false, false, 0, 0);
    assertEquals(OOM, refusals.refusal(true, OOM, true));
    assertEquals(WriteRefusals.MASTERDOWN, refusals.refusal(true, null, true));
    assertNull(refusals.refusal(true, null, false), "MASTERDOWN not asked for");
    refusals.role(true, true);
    assertNull(refusals.refusal(true, null, true), "the link is up");
  }

  @Test
  void refusal_notAWrite_onlyMemoryAndMasterDown() {
    refusals.logInForce(log);
    refusals.logFailure(log, LOG_FAILURE);
    refusals.role(true, false);
    refusals.replicationSettings(true, false, 0, 0);
    assertEquals(OOM, refusals.refusal(false, OOM, true));
    assertEquals(WriteRefusals.MASTERDOWN, refusals.refusal(false, null, true));
  }

  @Test
  void logFailure_ofALogNotInForce_ignored() {
    Object old = new Object();
    refusals.logInForce(old);
    refusals.logInForce(log);
    refusals.logFailure(old, LOG_FAILURE);
    assertNull(refusals.logRefusal());
    refusals.logFailure(log, LOG_FAILURE);
    assertEquals(LOG_FAILURE, refusals.logRefusal());
    refusals.logInForce(null);
    assertNull(refusals.logRefusal(), "no log: nothing to refuse for");
  }

  @Test
  void logRefusal_failedBackgroundSave_onlyWithStopWritesAndSavePoints() {
    refusals.logInForce(log);
    refusals.saveFailed(true);
    refusals.saveSettings(true, false);
    assertNull(refusals.logRefusal(), "no save points");
    refusals.saveSettings(false, true);
    assertNull(refusals.logRefusal(), "stop-writes-on-bgsave-error no");
    refusals.saveSettings(true, true);
    assertEquals(SaveStats.BGSAVE_ERROR, refusals.logRefusal());
    refusals.saveFailed(false);
    assertNull(refusals.logRefusal());
  }

  @Test
  void refusal_minReplicas_countsOnlineReplicasWithinTheLag() {
    long now = System.currentTimeMillis();
    refusals.replicationSettings(true, true, 2, 10);
    assertNull(refusals.refusal(true, null, true), "no replication running: nothing to count");
    refusals.role(false, false);
    assertEquals(WriteRefusals.NOREPLICAS, refusals.refusal(true, null, true));
    refusals.onlineAcks(new long[] {now, now - 60_000});
    assertEquals(1, refusals.goodReplicas(10));
    assertEquals(WriteRefusals.NOREPLICAS, refusals.refusal(true, null, true));
    refusals.onlineAcks(new long[] {now, now - 1_000});
    assertEquals(2, refusals.goodReplicas(10));
    assertNull(refusals.refusal(true, null, true));
    refusals.replicationSettings(true, true, 2, 0);
    refusals.onlineAcks(new long[0]);
    assertNull(refusals.refusal(true, null, true), "min-replicas-max-lag 0 turns the check off");
  }

  @Test
  void deletesExpired_masterWhoseLogAccepts() {
    refusals.logInForce(log);
    refusals.role(false, false);
    assertTrue(refusals.deletesExpired());
    refusals.logFailure(log, LOG_FAILURE);
    assertFalse(refusals.deletesExpired(), "the log refuses writes");
    refusals.logFailure(log, null);
    refusals.role(true, true);
    assertFalse(refusals.deletesExpired(), "a replica waits for its master's deletions");
  }
}
