import Foundation

/// Why a profile source cannot be read.
package struct ProfileSourceProblem: Error, Sendable {
    package let reason: String
    init(_ reason: String) { self.reason = reason }
}
