/** Both parts are already opaque hashes (base64url): a raw credential or header never gets here. */
export interface ConversationKey {
  tenant: string;
  conversation: string;
}
