import HTTPTypes

extension HTTPFields {
    /// Whether `If-None-Match` names `etag` (or `*`), compared weakly as RFC 9110 asks (a `W/` prefix ignored).
    func ifNoneMatchMatches(_ etag: String) -> Bool {
        guard let header = self[.ifNoneMatch] else { return false }
        if header == etag { return true }
        return header.split(separator: ",").contains {
            let tag = $0.trimmingWhitespace
            let opaque = tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
            return opaque == "*" || opaque == etag
        }
    }
}
