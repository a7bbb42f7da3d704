/** zstd-codec ships no types; the part the status server (and its tests) use. */
declare module "zstd-codec" {
  export interface ZstdSimple {
    compress(data: Uint8Array, level?: number): Uint8Array | null;
    decompress(data: Uint8Array): Uint8Array | null;
  }
  export const ZstdCodec: { run(callback: (zstd: { Simple: new () => ZstdSimple }) => void): void };
}
