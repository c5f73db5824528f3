import Foundation

/// Words a user can read for any error, Foundation's file errors included.
///
/// Foundation's own text for a failed file operation is `Error Domain=NSCocoaErrorDomain
/// Code=513 "(null)" UserInfo={…}` on Linux; this gives the system's reason instead, such as
/// "Permission denied".
public enum ErrorText {
    public static func describe(_ error: any Error) -> String {
        if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        guard let cocoa = error as? CocoaError else { return String(describing: error) }
        if let underlying = cocoa.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        switch cocoa.code {
        case .fileNoSuchFile, .fileReadNoSuchFile: return String(cString: strerror(ENOENT))
        case .fileReadNoPermission, .fileWriteNoPermission: return String(cString: strerror(EACCES))
        case .fileWriteOutOfSpace: return String(cString: strerror(ENOSPC))
        case .fileWriteVolumeReadOnly: return String(cString: strerror(EROFS))
        case .fileWriteFileExists: return String(cString: strerror(EEXIST))
        case .fileReadCorruptFile, .fileReadInapplicableStringEncoding: return "the file's contents cannot be read as text"
        default: return "file operation failed (code \(cocoa.code.rawValue))"
        }
    }
}
