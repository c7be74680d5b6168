package dev.cuckoo.server.protocol;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.config.OutputBufferLimit;
import org.junit.jupiter.api.Test;

/**
 * Redis's checkClientOutputBufferLimits: the hard limit at once (reached at {@code >=}), the soft
 * limit only once it has held for more than its seconds (whole seconds), forgotten as soon as a
 * check finds the output below it.
 */
class OutputLimitCheckTest {
  private static final long START = 1_000_000;

  @Test
  void exceeded_atTheHardLimit_atOnce() {
    OutputLimitCheck check = new OutputLimitCheck();
    OutputBufferLimit limit = new OutputBufferLimit(1000, 0, 0);
    assertFalse(check.exceeded(limit, 999, START));
    assertTrue(check.exceeded(limit, 1000, START));
  }

  @Test
  void exceeded_aboveTheSoftLimit_onlyAfterItsSeconds() {
    OutputLimitCheck check = new OutputLimitCheck();
    OutputBufferLimit limit = new OutputBufferLimit(0, 1000, 60);
    assertFalse(check.exceeded(limit, 1200, START), "first seen above it");
    assertFalse(check.exceeded(limit, 1000, START + 60_000), "60 s above it is still allowed");
    assertTrue(check.exceeded(limit, 1000, START + 61_000));
  }

  @Test
  void exceeded_backBelowTheSoftLimit_startsTheCountAgain() {
    OutputLimitCheck check = new OutputLimitCheck();
    OutputBufferLimit limit = new OutputBufferLimit(0, 1000, 60);
    assertFalse(check.exceeded(limit, 1200, START));
    assertFalse(check.exceeded(limit, 100, START + 59_000));
    assertFalse(check.exceeded(limit, 1200, START + 118_000));
    assertFalse(check.exceeded(limit, 1200, START + 177_000), "59 s since it went above again");
    check.below();
    assertFalse(check.exceeded(limit, 1200, START + 240_000), "below() forgot the excursion");
  }

  @Test
  void exceeded_noLimits_never() {
    OutputLimitCheck check = new OutputLimitCheck();
    OutputBufferLimit none = new OutputBufferLimit(0, 0, 0);
    assertFalse(check.exceeded(none, Long.MAX_VALUE, START));
    assertFalse(check.exceeded(none, Long.MAX_VALUE, START + 1_000_000));
  }
}
