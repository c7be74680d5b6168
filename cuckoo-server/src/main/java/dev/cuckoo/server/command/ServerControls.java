package dev.cuckoo.server.command;

/**
 * What CONFIG SET changes in the running server beyond a setting's value: the listening socket
 * (port, bind) and the append-only log (appendonly). The server provides them once it listens.
 */
public interface ServerControls {
  /** Controls of a server that is not listening (the contexts recovery replays through). */
  ServerControls NONE =
      new ServerControls() {
        @Override
        public boolean listen(String bind, int port) {
          return false;
        }

        @Override
        public boolean appendOnly(boolean on) {
          return false;
        }
      };

  /**
   * Listens on {@code bind:port} instead of the current address (port 0: a free port), closing the
   * old listener; connections already made stay open.
   *
   * @return false if the new address cannot be bound (the old listener is kept)
   */
  boolean listen(String bind, int port);

  /**
   * Turns the append-only log on (a snapshot of the keys as they are and an empty log, as Redis
   * rewrites its log when it is turned on) or off (writes are no longer logged; the files stay).
   * Does nothing if the log is already in that state.
   *
   * @return false if the log could not be turned on (it stays off)
   */
  boolean appendOnly(boolean on);
}
