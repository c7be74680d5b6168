package dev.cuckoo.server.protocol;

import dev.cuckoo.server.config.OutputBufferLimit;

/**
 * The output buffer limit check of one connection, as Redis's {@code
 * checkClientOutputBufferLimits}: the limit is passed when the bytes waiting for the connection
 * reach the hard limit, or have stayed at or above the soft limit for more than the soft limit's
 * seconds (counted in whole seconds from the first check that saw them there; a check below the
 * soft limit starts the count afresh). Not thread-safe: one connection's checks run one at a time.
 */
public final class OutputLimitCheck {
  private long softReachedSecond = -1;

  /**
   * Returns true if the connection passed {@code limit}.
   *
   * @param limit the limit of the connection's class
   * @param waitingBytes the bytes waiting for the connection
   * @param nowMillis the time now, Unix milliseconds
   */
  public boolean exceeded(OutputBufferLimit limit, long waitingBytes, long nowMillis) {
    boolean hard = limit.hardReached(waitingBytes);
    boolean soft = false;
    if (limit.softReached(waitingBytes)) {
      long second = nowMillis / 1000;
      if (softReachedSecond < 0) {
        softReachedSecond = second;
      } else {
        soft = second - softReachedSecond > limit.softSeconds();
      }
    } else {
      softReachedSecond = -1;
    }
    return hard || soft;
  }

  /** Notes a check that found the connection below every limit: the soft limit's count restarts. */
  public void below() {
    softReachedSecond = -1;
  }
}
