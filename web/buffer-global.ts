/** Node's Buffer global for the page: a few core modules (Sprig's byte helpers) use it. */
export { Buffer } from "buffer";
