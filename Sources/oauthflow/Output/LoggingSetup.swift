#if CLI
import ArgumentParser
import Foundation
import Logging
import OAuthFlow

/// Sends log lines to stderr, escaped for a terminal; bootstrapped once, the first time a command asks for a logger.
enum LoggingSetup {
    static let bootstrapped: Void = LoggingSystem.bootstrap { label in TerminalLogHandler(StreamLogHandler.standardError(label: label)) }
}
#endif
