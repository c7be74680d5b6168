package dev.cuckoo.server.command;

/**
 * How a write command changes the keyspace: what its logged record reaches, whether it moves data
 * between keys, and whether it touches WATCH even when it changes nothing. Recovery, key locking,
 * WATCH and the log read it from the command's table entry.
 *
 * @param reach which keys or databases a record of the command changes
 * @param movesData true if its effect on one key depends on another key's state (RENAME, MOVE,
 *     SWAPDB): replayed whole or not at all, never run while a snapshot is being written
 * @param touchesWatchAlways true for a module write: Redis opens its key for writing, which
 *     invalidates WATCH once the command gets that far, whatever it answers
 */
public record Writes(Reach reach, boolean movesData, boolean touchesWatchAlways) {
  /** What a logged record of a command changes. */
  public enum Reach {
    /** The keys its key specs find. */
    KEYS,
    /** Its key, in the database it ran in and in the one its second argument names (MOVE). */
    KEY_IN_TWO_DATABASES,
    /** Every key of the database it ran in (FLUSHDB). */
    DATABASE,
    /** Every key of every database (FLUSHALL). */
    ALL_DATABASES,
    /** Every key of the two databases its arguments name (SWAPDB). */
    TWO_DATABASES,
    /**
     * The keys its key specs find, the last one in the database a {@code DB n} option names when
     * there is one (COPY).
     */
    KEYS_TO_DATABASE_OPTION,
    /**
     * The writes of the commands a transaction queued (EXEC): every database, each record its own.
     */
    QUEUED
  }

  /**
   * Returns true if the write locks every stripe rather than its keys' (a flush, a swap, a
   * transaction).
   */
  public boolean locksEverything() {
    return reach == Reach.DATABASE
        || reach == Reach.ALL_DATABASES
        || reach == Reach.TWO_DATABASES
        || reach == Reach.QUEUED;
  }

  /** A core write of the keys its key specs find (DEL, EXPIRE, PERSIST). */
  public static final Writes KEYS = new Writes(Reach.KEYS, false, false);

  /** A module write of its key: touches WATCH whenever it opens the key (CF.ADD, CF.DEL). */
  public static final Writes MODULE_KEY = new Writes(Reach.KEYS, false, true);

  /** Moves data between the keys its key specs find (RENAME, RENAMENX). */
  public static final Writes MOVES_KEYS = new Writes(Reach.KEYS, true, false);

  /** Writes the keys its key specs find, the destination maybe in another database (COPY). */
  public static final Writes KEYS_TO_DATABASE_OPTION =
      new Writes(Reach.KEYS_TO_DATABASE_OPTION, false, false);

  /** Moves its key to another database (MOVE). */
  public static final Writes MOVES_TO_DATABASE =
      new Writes(Reach.KEY_IN_TWO_DATABASES, true, false);

  /** Swaps two databases (SWAPDB). */
  public static final Writes SWAPS_DATABASES = new Writes(Reach.TWO_DATABASES, true, false);

  /** Empties the database it ran in (FLUSHDB). */
  public static final Writes DATABASE = new Writes(Reach.DATABASE, false, false);

  /** Empties every database (FLUSHALL). */
  public static final Writes ALL_DATABASES = new Writes(Reach.ALL_DATABASES, false, false);

  /**
   * Runs the writes a transaction queued (EXEC): whether it moves data is the queue's, decided when
   * it runs.
   */
  public static final Writes TRANSACTION = new Writes(Reach.QUEUED, false, false);
}
