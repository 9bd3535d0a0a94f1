#if CLI
import ArgumentParser
import OAuthFlow

extension Output {
    /// Runs a command's work; whatever it throws is printed as one `error:` sentence (and a `hint:`
    /// where `advice` has one) and becomes exit 1, without a usage banner. An `ExitCode` the work
    /// throws itself (a timeout's 2, an interrupt's 130, a failure it has already printed) passes through.
    ///
    /// - Parameters:
    ///   - advice: What to do next after an error, in one sentence; ``Advice/general(_:)`` by default.
    ///   - work: The command's work.
    static func running<Value>(
        advice: (any Error) -> String? = Advice.general, prefix: String = "", _ work: () async throws -> Value
    ) async throws -> Value {
        do {
            return try await work()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw fail(error, advice: advice(error), prefix: prefix)
        }
    }
}
#endif
