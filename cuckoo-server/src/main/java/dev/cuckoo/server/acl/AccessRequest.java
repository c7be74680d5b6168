package dev.cuckoo.server.acl;

/**
 * A request as the ACL check reads it: its command, its arguments, and the positions of its keys
 * (with the access each needs) and of its channels.
 */
public interface AccessRequest {
  /** Returns the command or subcommand the request runs. */
  AclCommand command();

  /** Returns the number of arguments, the command name included. */
  int argCount();

  /** Returns argument {@code index} (0: the command name). */
  byte[] arg(int index);

  /** Returns the number of keys the request names. */
  int keyCount();

  /** Returns the argument position of key {@code index}. */
  int keyPosition(int index);

  /** Returns the access key {@code index} needs: {@link #READ}, {@link #WRITE} or both (or 0). */
  int keyAccess(int index);

  /** Returns the number of channels the request publishes or subscribes to. */
  int channelCount();

  /** Returns the argument position of channel {@code index}. */
  int channelPosition(int index);

  /** Returns true if channel {@code index} is a PSUBSCRIBE pattern. */
  boolean channelIsPattern(int index);

  /** Key access: the command reads the value (key spec flag access). */
  int READ = Selector.READ;

  /**
   * Key access: the command changes, inserts or deletes (key spec flags update, insert, delete).
   */
  int WRITE = Selector.WRITE;
}
