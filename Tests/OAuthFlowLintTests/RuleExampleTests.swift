import Foundation
import OAuthFlow
import Testing
import OAuthFlowTestSupport
import OAuthFlowLint

/// One example of one rule, with a readable name for the test report.
struct RuleExample: CustomTestStringConvertible, Sendable {
    let rule: any LintRule.Type
    let text: String
    let triggers: Bool
    let index: Int

    var testDescription: String {
        "\(rule.description.identifier) \(triggers ? "triggers" : "accepts") #\(index + 1)"
    }

    static var all: [RuleExample] {
        Linter.allRules.flatMap { rule in
            rule.description.triggeringExamples.enumerated().map { RuleExample(rule: rule, text: $0.element, triggers: true, index: $0.offset) }
                + rule.description.nonTriggeringExamples.enumerated().map { RuleExample(rule: rule, text: $0.element, triggers: false, index: $0.offset) }
        }
    }
}

@Suite struct RuleExampleTests {
    @Test(arguments: RuleExample.all)
    func example(_ example: RuleExample) {
        let files = RuleCatalog.files(of: example.text).enumerated().map { index, text in
            LintFile(document: DescriptorDocument.parse(Data(text.utf8), path: "file\(index)/example.yaml"))
        }
        let id = example.rule.description.identifier
        let hits = Linter().lint(files).filter { $0.ruleID == id }
        if example.triggers {
            #expect(!hits.isEmpty, "expected `\(id)` to trigger on:\n\(example.text)")
            #expect(hits.allSatisfy { $0.location.line >= 1 && $0.location.column >= 1 })
        } else {
            #expect(hits.isEmpty, "expected `\(id)` to accept, got: \(hits)")
        }
    }

    @Test func everyRuleHasExamplesOfBothKinds() {
        for rule in Linter.allRules {
            #expect(!rule.description.triggeringExamples.isEmpty, "\(rule.description.identifier) has no triggering example")
            #expect(!rule.description.nonTriggeringExamples.isEmpty, "\(rule.description.identifier) has no accepted example")
        }
    }

    @Test func ruleIdentifiersAreUniqueSnakeCase() {
        let ids = Linter.allRules.map { $0.description.identifier }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" }, "\(id)")
        }
    }

    @Test func nonTriggeringExamplesAreCleanUnderEveryRule() {
        // Accepted examples double as valid descriptors: no rule may flag them with an error.
        for rule in Linter.allRules where !(rule is any CollectionLintRule.Type) {
            for text in rule.description.nonTriggeringExamples {
                let errors = Linter().lint(text: text, path: "example.yaml").filter { $0.severity == .error }
                #expect(errors.isEmpty, "\(rule.description.identifier): \(errors)")
            }
        }
    }
}
