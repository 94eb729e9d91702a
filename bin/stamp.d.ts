/** Types of bin/stamp.js (plain JavaScript, so bin/netrep.js runs it without a compiler). */
export declare const SRC_ROOT: string;
export declare const STAMP_FILE: string;
export declare function sourceFiles(): string[];
export declare function sourceStamp(): { newest: number; files: string };
export declare function distIsCurrent(distUrl: URL): boolean;
