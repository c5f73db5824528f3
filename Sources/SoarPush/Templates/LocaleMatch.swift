/// Which of a send's locale variants a device gets, from the locale it registered
/// (`device_tokens.locale`, such as `fr-CA`, `fr_CA` or `ja_JP@calendar=japanese`): the variant of that exact locale, else of
/// the locale with its last subtag dropped, again and again (`zh-Hant-TW`, `zh-Hant`, `zh`), else
/// none, and the device gets the send's default.
enum LocaleMatch {
    /// Lowercase, with `-` between subtags; nil when it is not a locale's form.
    static func normalized(_ locale: String) -> String? {
        // Keywords (`ja_JP@calendar=japanese`, as iOS may write) are not part of the match.
        let locale = locale.split(separator: "@", maxSplits: 1).first.map(String.init) ?? ""
        let subtags = locale.lowercased().split(separator: "-", omittingEmptySubsequences: false).flatMap { $0.split(separator: "_", omittingEmptySubsequences: false) }
        guard let language = subtags.first, (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLetter }), locale.count <= 35,
            subtags.dropFirst().allSatisfy({ (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
        else { return nil }
        return subtags.joined(separator: "-")
    }

    /// The variant among `variants` (normalized) for a device's `locale`; nil: the default.
    static func variant(for locale: String?, among variants: some Collection<String>) -> String? {
        guard let locale, var key = normalized(locale) else { return nil }
        while true {
            if variants.contains(key) { return key }
            guard let cut = key.lastIndex(of: "-") else { return nil }
            key = String(key[..<cut])
        }
    }
}
