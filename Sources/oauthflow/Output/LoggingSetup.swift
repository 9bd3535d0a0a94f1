import ArgumentParser
import Foundation
import Logging
import OAuthFlow

/// Sends log lines to stderr; bootstrapped once, the first time a command asks for a logger.
enum LoggingSetup {
    static let bootstrapped: Void = LoggingSystem.bootstrap(StreamLogHandler.standardError)
}
