/** A horizontal rule with a word in the middle ("or"). */
export function Divider({ text }: { text: string }) {
  return (
    <div className="lk-divider" role="separator">
      <span>{text}</span>
    </div>
  );
}
